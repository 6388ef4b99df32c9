import ChatClientKit
import ChatProtocol
import ChatTUI
import Glibc
import QuicEngine

/// Keys.
extension TUIMode {
    func readKeys() {
        guard keys.read() else {
            exitMessage = "chat-client: terminal closed"
            return quitNow()
        }
    }

    func handle(_ key: KeyEvent) {
        if secretEntry != nil { return handleSecretKey(key) }
        // A key after one that showed another buffer types into that buffer's draft; a person at
        // the keys has seen the buffer shown (its read marker moves, version 1.2).
        defer {
            keepDraftPerBuffer()
            markShownRead()
        }
        // A notice stays until the next key.
        model.notice = nil
        switch key {
        case .control("c"):
            requestQuit()
        case .control("d") where editor.isEmpty:
            requestQuit()
        case .control("z"):
            suspend()
        case .control("l"):
            redrawAll()
        case .control("n"):
            model.selectNextRoom()
        case .control("p"):
            model.selectPreviousRoom()
        case .control("r"):
            searchAgain()
        case .enter where editor.isEmpty && model.currentRoom?.name == ChatViewModel.foundView:
            showFoundMessage(nil)
        case .alt("\t"), .alt("a"):
            model.selectNextRoomWithActivity()
        case .alt(let character) where character.isNumber:
            if let digit = character.wholeNumberValue {
                // Alt-1..9 are the first nine, Alt-0 the tenth; /buffer N reaches the rest.
                model.selectRoom(at: digit == 0 ? 9 : digit - 1)
            }
        case .pageUp:
            let (columns, rows) = terminal.size
            if renderer.pageUp(&model, size: TerminalSize(columns: columns, rows: rows)) == .reachedOldest {
                requestOlderHistory()
            }
        case .pageDown:
            let (columns, rows) = terminal.size
            renderer.pageDown(&model, size: TerminalSize(columns: columns, rows: rows))
        case .end where editor.cursor == editor.characters.count:
            // End with the cursor already at the end of the input: back to the newest line.
            model.scrollToNewest()
        default:
            // Only Tab completes: the folder of a path is read then, not at every key.
            let candidates = key == .tab ? completionCandidates() : CompletionCandidates()
            switch editor.handle(key, candidates: candidates) {
            case .submitted(let line):
                stopTyping()
                submit(line)
            case .edited:
                followTyping()
            case .ignored:
                break
            }
        }
    }

    /// What Tab completes to now: the nicks of the buffer shown, the commands, the rooms joined
    /// and listed (`/rooms`), and, where the command table says the word is a path, the paths.
    func completionCandidates() -> CompletionCandidates {
        let room = model.currentRoom
        let nicks = room.map { $0.queryNick.map { [$0] } ?? $0.members } ?? []
        let kind = ClientCommands.argumentKind(before: String(editor.characters[..<editor.cursor]))
        let word = String(editor.characters[editor.wordBeforeCursor])
        let joined = model.rooms.filter { !$0.isQuery && !$0.isView }.map(\.name)
        return CompletionCandidates(nicks: nicks, commands: ClientCommands.names(fullScreen: true), rooms: joined + listedRooms.filter { !joined.contains($0) },
                                    wantsRoom: kind == .room,
                                    paths: kind == .path ? PathCompletion.candidates(for: word, home: getenv("HOME").map { String(cString: $0) })
                                        : nil)
    }

    // MARK: Typing indicators (PROTOCOL.md: start at most every 3 s while typing, stop when cleared or sent)

    /// Typing is announced only for a message: never for a command (`/msg bob ...` tells the room
    /// nothing). In a private conversation with NICK it goes to NICK alone, as room `@NICK`
    /// (PROTOCOL.md section 3 item 13).
    func followTyping() {
        let text = editor.text
        guard !awaitingNick, awaitingTrust == nil, !text.isEmpty, let room = currentChatRoom ?? model.currentRoom?.queryNick.map({ ChatRoom.queryPrefix + $0 }),
              Self.isMessageDraft(text) else { return stopTyping() }
        if typingRoom != room { stopTyping() }
        let now = MonotonicTime.now()
        if let last = lastTypingSent, now - last < .seconds(3) { return }
        lastTypingSent = now
        typingRoom = room
        session.sendTyping(room: room, typing: true)
    }

    /// Text that will be sent as a message: not a command, but `//text` and `/me` are messages.
    static func isMessageDraft(_ text: String) -> Bool {
        !text.hasPrefix("/") || text.hasPrefix("//") || text.hasPrefix(ChatAction.prefix)
    }

    func stopTyping() {
        guard lastTypingSent != nil, let room = typingRoom else { return }
        lastTypingSent = nil
        typingRoom = nil
        session.sendTyping(room: room, typing: false)
    }

    // MARK: Scrollback

    /// Older events of the room shown, above the oldest shown. `asked`: by `/history`, which says
    /// what came (PgUp at the top shows it).
    func requestOlderHistory(limit: Int = 50, asked: Bool = false) {
        guard let room = currentChatRoom, let index = model.roomIndex(named: room) else {
            if asked { model.notice = "/history reads a room: show one first" }
            return
        }
        guard !model.rooms[index].isHistoryExhausted else {
            if asked { model.notice = "#\(room) has no older events" }
            return
        }
        guard !historyRequested.contains(room) else { return }
        historyRequested.insert(room)
        if asked { historyAnnounced.insert(room) }
        session.send(.history(room: room, before: oldestSeq[room], limit: limit))
    }

    /// Ctrl-R: the previous line with the last word searched for (or the input line's text).
    func searchAgain() {
        let term = model.lastSearchTerm ?? (editor.isEmpty ? nil : editor.text)
        guard let term else {
            model.notice = "Ctrl-R searches again after /search WORD"
            return
        }
        if !model.search(term, older: model.lastSearchTerm == term) { model.notice = "no older line with '\(term)'" }
    }
}
