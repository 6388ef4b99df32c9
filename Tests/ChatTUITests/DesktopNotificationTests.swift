import Testing

@testable import ChatTUI

struct DesktopNotificationTests {
    @Test func sequences() {
        #expect(DesktopNotification.osc9.sequence(title: "qchat", body: "alice: hi", insideTmux: false) == "\u{1B}]9;qchat: alice: hi\u{07}")
        #expect(DesktopNotification.osc777.sequence(title: "q;chat", body: "a; b", insideTmux: false) == "\u{1B}]777;notify;q,chat;a, b\u{07}")
        #expect(DesktopNotification.osc9.sequence(title: "t", body: "b", insideTmux: true) == "\u{1B}Ptmux;\u{1B}\u{1B}]9;t: b\u{07}\u{1B}\\")
    }

    /// Nothing from the network ends the sequence or adds one: controls become visible, the
    /// body is cut.
    @Test func hostileTextStaysInside() {
        for hostile in hostileCorpus {
            let sequence = DesktopNotification.osc777.sequence(title: "qchat", body: hostile, insideTmux: false)
            let inner = sequence.dropFirst().dropLast()
            #expect(!inner.unicodeScalars.contains { isUnsafe($0) }, "\(hostile.unicodeScalars.map(\.value))")
        }
        let long = DesktopNotification.osc9.sequence(title: "t", body: String(repeating: "x", count: 500), insideTmux: false)
        #expect(long.count == "\u{1B}]9;t: ".count + DesktopNotification.bodyLimit + 1)
    }
}
