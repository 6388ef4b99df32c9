/// Decodes raw terminal input bytes into key events.
///
/// Bytes may arrive split anywhere: a partial escape sequence, a partial UTF-8 character and a
/// partial bracketed paste are all kept until the next ``feed(_:)``. A lone ESC cannot be told
/// from the start of a sequence until more bytes come or time passes, so the caller arms a short
/// timer (25-50 ms) whenever ``needsTimeoutFlush`` is true and calls ``flushPending()`` when it
/// fires: then a pending ESC becomes ``KeyEvent/escape`` and ESC `[` or ESC `O` become Alt keys.
///
/// Unknown sequences (function keys, mouse and focus reports, terminal replies) are swallowed
/// whole: none of their bytes turns into typed text. Sequences are recognised through the tables
/// in `KeyDecoder+Tables.swift`.
public struct KeyDecoder: Sendable {
    /// Pastes larger than this are cut (the rest is dropped until the paste ends).
    public static let maximumPasteBytes = 1 << 20
    static let maximumSequenceBytes = 16
    static let pasteTerminator: [UInt8] = Array("\u{1B}[201~".utf8)

    enum State: Sendable, Equatable {
        case ground
        /// After ESC.
        case escape
        /// After ESC `[`: parameter and intermediate bytes collect in `sequenceBytes`.
        case controlSequence
        /// After ESC `[` `[` (Linux console F1-F5): one more byte ends it.
        case linuxFunctionKey
        /// After ESC `O`.
        case singleShift
        /// Inside OSC, DCS, SOS, PM or APC: swallowed until BEL or ST.
        case controlString(sawEscape: Bool)
        /// Inside a multi-byte UTF-8 character of `expected` bytes.
        case utf8(expected: Int)
        /// Between ESC[200~ and ESC[201~; `matched` bytes of the terminator are held back.
        case paste(matched: Int)
    }

    var state = State.ground
    var sequenceBytes: [UInt8] = []
    var utf8Bytes: [UInt8] = []
    var pasteBytes: [UInt8] = []
    var events: [KeyEvent] = []
    var text = ""

    public init() {}

    /// True when bytes wait for more input that may never come: arm the ESC timeout.
    /// Never true inside a paste, which ends only with its terminator.
    public var needsTimeoutFlush: Bool {
        switch state {
        case .ground, .paste: return false
        default: return true
        }
    }

    /// True between the start and the end of a bracketed paste.
    public var isInsidePaste: Bool {
        if case .paste = state { return true }
        return false
    }

    /// Decodes as many events as the bytes complete.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [KeyEvent] where Bytes.Element == UInt8 {
        for byte in bytes {
            consume(byte)
        }
        return takeEvents()
    }

    /// Resolves what is pending after the ESC timeout: a lone ESC is Esc, ESC `[` and ESC `O`
    /// are Alt-`[` and Alt-`O`, a partial UTF-8 character is U+FFFD, and anything else partial
    /// (a cut-off sequence or control string) is dropped. A paste in progress is left alone.
    public mutating func flushPending() -> [KeyEvent] {
        switch state {
        case .escape:
            emit(.escape)
        case .controlSequence where sequenceBytes.isEmpty:
            emit(.alt("["))
        case .singleShift:
            emit(.alt("O"))
        case .utf8:
            emitText("\u{FFFD}")
        case .ground, .paste:
            return takeEvents()
        case .controlSequence, .linuxFunctionKey, .controlString:
            break
        }
        state = .ground
        return takeEvents()
    }

    mutating func emitText(_ string: String) {
        text += string
    }

    mutating func emit(_ event: KeyEvent) {
        flushText()
        events.append(event)
    }

    mutating func flushText() {
        guard !text.isEmpty else { return }
        events.append(.text(text))
        text = ""
    }

    mutating func takeEvents() -> [KeyEvent] {
        flushText()
        defer { events = [] }
        return events
    }
}
