import Testing

@testable import ChatTUI

/// Operators first in the member list (issue 24, habits), then those logged in, then the rest.
struct MemberOrderTests {
    @Test func operatorsFirst() {
        let order = MemberOrder.sorted(["zed", "Bob", "alice", "carol", "Dave"], operators: ["zed", "dave"], identified: ["carol"])
        #expect(order == ["Dave", "zed", "carol", "alice", "Bob"])
        #expect(MemberOrder.marks("zed", operators: ["zed"], identified: [], away: true) == "@~")
        #expect(MemberOrder.marks("carol", operators: [], identified: ["carol"], away: false) == "+")
    }

    @Test func theMemberPaneListsOperatorsFirst() {
        var model = sampleModel()
        model.setMembers(["alice", "bob", "carol", "zoe"], in: "lobby")
        model.setRoomInfo(topic: nil, modes: [], operators: ["zoe"], identified: [], in: "lobby")
        let screen = renderOnScreen(model, editor: makeEditor(""), size: TerminalSize(columns: 100, rows: 20)).screen.textLines
        let pane = screen.dropFirst().compactMap { row -> String? in
            guard let bar = row.firstIndex(of: "|") else { return nil }
            return row[row.index(after: bar)...].trimmingCharacters(in: .whitespaces)
        }.filter { !$0.isEmpty }
        #expect(Array(pane.prefix(3)) == ["Members (4)", "@zoe", "alice"], "\(screen)")
    }
}
