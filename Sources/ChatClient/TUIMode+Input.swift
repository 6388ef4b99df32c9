import ChatClientKit
import ChatProtocol
import ChatTUI
import Glibc
import QuicEngine

/// Keys and commands.
extension TUIMode {
    static let commands = ["/join", "/part", "/msg", "/nick", "/away", "/back", "/who", "/quit", "/help"]

    func readKeys() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(0, &buffer, buffer.count)
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            exitMessage = "chat-client: terminal closed"
            quit()
            return
        }
        for key in decoder.feed(buffer[..<count]) { handle(key) }
        if let escapeTimer { loop.cancel(escapeTimer) }
        escapeTimer = nil
        if decoder.needsTimeoutFlush {
            escapeTimer = loop.schedule(at: .now() + .milliseconds(40)) { [unowned self] in
                for key in decoder.flushPending() { handle(key) }
                needsRender = true
            }
        }
        needsRender = true
    }

    func handle(_ key: KeyEvent) {
        switch key {
        case .control("c"):
            quit()
        case .control("d") where editor.isEmpty:
            quit()
        case .control("n"):
            model.selectNextRoom()
        case .control("p"):
            model.selectPreviousRoom()
        case .alt(let character) where character.isNumber:
            if let digit = character.wholeNumberValue, digit >= 1 { model.selectRoom(at: digit - 1) }
        case .pageUp:
            let (columns, rows) = terminal.size
            if renderer.pageUp(&model, size: TerminalSize(columns: columns, rows: rows)) == .reachedOldest {
                requestOlderHistory()
            }
        case .pageDown:
            let (columns, rows) = terminal.size
            renderer.pageDown(&model, size: TerminalSize(columns: columns, rows: rows))
        default:
            let room = model.currentRoom
            let candidates = CompletionCandidates(nicks: room?.members ?? [], commands: TUIMode.commands)
            switch editor.handle(key, candidates: candidates) {
            case .submitted(let line):
                stopTyping()
                submit(line)
            case .edited:
                editor.isEmpty ? stopTyping() : startTyping()
            case .ignored:
                break
            }
        }
    }

    // MARK: Typing indicators (PROTOCOL.md: start at most every 3 s while typing, stop when cleared or sent)

    private func startTyping() {
        let now = QuicTime.now()
        if let last = lastTypingSent, now - last < .seconds(3) { return }
        lastTypingSent = now
        sendTyping(true)
    }

    private func stopTyping() {
        guard lastTypingSent != nil else { return }
        lastTypingSent = nil
        sendTyping(false)
    }

    private func sendTyping(_ typing: Bool) {
        if !session.sendTyping(room: currentRoomName, typing: typing) {
            session.sendPresence(.typing(room: currentRoomName, isTyping: typing))
        }
    }

    // MARK: Commands

    private func submit(_ line: String) {
        guard line.hasPrefix("/") else {
            let id = ChatSession.randomPeerID()
            model.append(ChatLine(timestamp: unixMilliseconds(), nick: model.nick, text: line, kind: .ownPending, id: id), to: currentRoomName)
            session.send(.msg(room: currentRoomName, text: line, id: id))
            return
        }
        let words = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        switch words[0] {
        case "/join" where words.count >= 2:
            pendingJoin = words[1].lowercased()
            session.send(.join(room: words[1]))
        case "/part":
            session.send(.part(room: words.count >= 2 ? words[1] : currentRoomName))
        case "/msg" where words.count == 3:
            let id = ChatSession.randomPeerID()
            model.append(ChatLine(timestamp: unixMilliseconds(), nick: model.nick, text: "→ \(words[1]): \(words[2])", kind: .ownPending, id: id),
                         to: currentRoomName)
            session.send(.dm(to: words[1], text: words[2], id: id))
        case "/nick" where words.count >= 2:
            session.send(.nick(words[1]))
        case "/away":
            session.sendPresence(.status("away"))
            model.setStatus(.away, of: model.nick)
        case "/back":
            session.sendPresence(.status("online"))
            model.setStatus(.online, of: model.nick)
        case "/who":
            let members = model.currentRoom?.members ?? []
            note("\(members.count) here: " + members.map { model.status(of: $0) == .away ? "~" + $0 : $0 }.joined(separator: " "), in: currentRoomName)
        case "/quit":
            quit()
        default:
            note("commands: /join ROOM, /part [ROOM], /msg NICK TEXT, /nick NEW, /away, /back, /who, /quit; "
                 + "Alt-1..9 or Ctrl-N/Ctrl-P switch rooms, PgUp/PgDn scroll", in: currentRoomName)
        }
    }

    private func requestOlderHistory() {
        let room = currentRoomName
        guard let index = model.roomIndex(named: room), !model.rooms[index].isHistoryExhausted,
              !historyRequested.contains(room) else { return }
        historyRequested.insert(room)
        session.send(.history(room: room, before: oldestSeq[room], limit: 50))
    }
}
