/// The state machine: one function per state, each taking the next input byte.
extension KeyDecoder {
    mutating func consume(_ byte: UInt8) {
        switch state {
        case .ground: consumeInGround(byte)
        case .escape: consumeAfterEscape(byte)
        case .controlSequence: consumeInControlSequence(byte)
        case .linuxFunctionKey: consumeLinuxFunctionKey(byte)
        case .singleShift: consumeAfterSingleShift(byte)
        case .controlString(let sawEscape): consumeInControlString(byte, sawEscape: sawEscape)
        case .utf8(let expected): consumeInUTF8(byte, expected: expected)
        case .paste(let matched): consumeInPaste(byte, matched: matched)
        }
    }

    mutating func consumeInGround(_ byte: UInt8) {
        switch byte {
        case 0x1B:
            state = .escape
        case 0x20...0x7E:
            text.unicodeScalars.append(Unicode.Scalar(byte))
        case 0xC2...0xF4:
            utf8Bytes = [byte]
            state = .utf8(expected: byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4)
        case 0x80...0xFF:
            emitText("\u{FFFD}")
        default:
            if let key = Self.controlKeys[byte] { emit(key) }
        }
    }

    mutating func consumeAfterEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "["):
            sequenceBytes.removeAll(keepingCapacity: true)
            state = .controlSequence
        case UInt8(ascii: "O"):
            state = .singleShift
        case _ where Self.controlStringIntroducers.contains(byte):
            state = .controlString(sawEscape: false)
        case 0x1B:
            // Esc pressed twice: the first is a key, the second may still start a sequence.
            emit(.escape)
        case 0x20...0x7E:
            emit(.alt(Character(Unicode.Scalar(byte))))
            state = .ground
        case 0x09:
            // Alt-Tab, as terminals that do not take it for themselves send it.
            emit(.alt("\t"))
            state = .ground
        case 0x7F, 0x08:
            emit(.altBackspace)
            state = .ground
        default:
            emit(.escape)
            state = .ground
            consume(byte)
        }
    }

    mutating func consumeInControlSequence(_ byte: UInt8) {
        switch byte {
        case 0x20...0x3F:
            if sequenceBytes.count < Self.maximumSequenceBytes { sequenceBytes.append(byte) }
        case UInt8(ascii: "[") where sequenceBytes.isEmpty:
            state = .linuxFunctionKey
        case 0x40...0x7E:
            state = .ground
            dispatchControlSequence(final: byte)
        case 0x1B:
            state = .escape
        default:
            // Not part of any sequence: drop what came so far and read the byte afresh.
            state = .ground
            consume(byte)
        }
    }

    mutating func consumeLinuxFunctionKey(_ byte: UInt8) {
        state = .ground
        if !(0x40...0x7E).contains(byte) { consume(byte) }
    }

    mutating func consumeAfterSingleShift(_ byte: UInt8) {
        state = .ground
        if let key = Self.singleShiftKeys[byte] {
            emit(key)
        } else if !(0x20...0x7E).contains(byte) {
            consume(byte)
        }
    }

    mutating func consumeInControlString(_ byte: UInt8, sawEscape: Bool) {
        switch byte {
        case 0x07:
            state = .ground
        case UInt8(ascii: "\\") where sawEscape:
            state = .ground
        case 0x1B:
            state = .controlString(sawEscape: true)
        default:
            if sawEscape {
                // ESC not followed by `\` cancels the string and starts a new sequence.
                state = .escape
                consume(byte)
            }
        }
    }

    mutating func consumeInUTF8(_ byte: UInt8, expected: Int) {
        guard (0x80...0xBF).contains(byte) else {
            emitText("\u{FFFD}")
            state = .ground
            consume(byte)
            return
        }
        utf8Bytes.append(byte)
        if utf8Bytes.count == expected {
            // Overlong forms and surrogates decode to U+FFFD here.
            text += String(decoding: utf8Bytes, as: UTF8.self)
            state = .ground
        }
    }

    mutating func consumeInPaste(_ byte: UInt8, matched: Int) {
        let terminator = Self.pasteTerminator
        if byte == terminator[matched] {
            if matched + 1 == terminator.count {
                emit(.paste(String(decoding: pasteBytes, as: UTF8.self)))
                pasteBytes = []
                state = .ground
            } else {
                state = .paste(matched: matched + 1)
            }
            return
        }
        // The held-back bytes were content after all. Only ESC starts the terminator, so the
        // byte that broke the match can only begin a new match if it is ESC.
        appendPasteContent(terminator[..<matched])
        if byte == terminator[0] {
            state = .paste(matched: 1)
        } else {
            appendPasteContent(CollectionOfOne(byte))
            state = .paste(matched: 0)
        }
    }

    mutating func appendPasteContent<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let room = Self.maximumPasteBytes - pasteBytes.count
        guard room > 0 else { return }
        pasteBytes.append(contentsOf: bytes.prefix(room))
    }

    mutating func dispatchControlSequence(final: UInt8) {
        guard let key = Self.key(forControlSequence: sequenceBytes, final: final) else { return }
        if key == .bracketedPasteStart {
            pasteBytes = []
            state = .paste(matched: 0)
        } else if case .key(let event) = key {
            emit(event)
        }
    }
}
