extension ChatViewModel {
    /// `/search WORD` (and Ctrl-R again): shows the newest line of the current room that contains
    /// `term` (ignoring case, in the text or the nick), older than the line found last time when
    /// `older` is true; the line is emphasised and the pane ends at it. False when there is no
    /// (older) line with it: the view is left as it was.
    @discardableResult
    public mutating func search(_ term: String, older: Bool) -> Bool {
        guard rooms.indices.contains(currentRoomIndex), !term.isEmpty else { return false }
        let room = rooms[currentRoomIndex]
        let sameTerm = room.searchMatch.map { $0.term.lowercased() == term.lowercased() } ?? false
        let end = older && sameTerm ? room.searchMatch?.lineIndex ?? room.lines.count : room.lines.count
        let needle = term.lowercased()
        guard let found = room.lines[..<min(end, room.lines.count)].lastIndex(where: { line in
            !line.isRule && (line.text.lowercased().contains(needle) || line.nick.lowercased().contains(needle))
        }) else { return false }
        rooms[currentRoomIndex].searchMatch = (found, term)
        rooms[currentRoomIndex].scrollAnchor = found == room.lines.count - 1 ? nil : ScrollAnchor(lineIndex: found, hiddenRows: 0)
        return true
    }

    /// The word of the last search in the current room, for Ctrl-R (and to tell "again" from
    /// "anew": the same word in any case).
    public var lastSearchTerm: String? { currentRoom?.searchMatch?.term }
}

extension ChatViewModel {
    /// `/lastlog WORD`: every line of the current buffer containing WORD (in the text or the nick,
    /// case ignored), in a view buffer of their own (`=lastlog`, replaced by the next), which is
    /// shown. Returns how many lines matched.
    @discardableResult
    public mutating func showLastlog(_ term: String) -> Int {
        guard let source = currentRoom, !term.isEmpty else { return 0 }
        let needle = term.lowercased()
        let found = source.lines.filter { line in
            !line.isRule && (line.text.lowercased().contains(needle) || line.nick.lowercased().contains(needle))
        }
        showView("lastlog", found, header: "\(found.count) line\(found.count == 1 ? "" : "s") of \(source.name) with '\(term)'")
        return found.count
    }

    /// `/urls`: every web address of the current buffer, each on a line of its own with the time
    /// and nick of the line it was in (`=urls`, replaced by the next), shown whole. Returns how
    /// many.
    @discardableResult
    public mutating func showURLs() -> Int {
        guard let source = currentRoom else { return 0 }
        let found = source.lines.filter { !$0.isRule }.flatMap { line in
            URLFinder.urls(in: line.text).map { url in
                var copy = line
                copy.text = url
                copy.isAction = false
                return copy
            }
        }
        showView("urls", found, header: "\(found.count) web address\(found.count == 1 ? "" : "es") of \(source.name)")
        return found.count
    }

    /// The view of what a server's `search` found (`=search`, replaced by the next).
    public static let foundView = ChatRoom.viewPrefix + "search"

    /// A `found` (version 1.2, section 15): the messages found, oldest first (the server lists
    /// them newest first), in the `=search` view, shown. Enter there shows the newest in its
    /// place, N Enter message N (``showMessage(seq:in:term:)``).
    public mutating func showFound(_ lines: [ChatLine], in source: String, words: String) {
        let header = "\(lines.count) found in \(source) for '\(words)'"
            + (lines.isEmpty ? "" : ": Enter shows the newest in its place, N Enter message N")
        showView("search", Array(lines.reversed()), header: header)
    }

    /// Shows the message `seq` of a buffer in its place: the buffer is shown, the line
    /// emphasised as a search finds it, the pane ending at it. False when the buffer does not
    /// hold it (yet).
    @discardableResult
    public mutating func showMessage(seq: Int64, in roomName: String, term: String) -> Bool {
        guard let index = roomIndex(named: roomName),
              let line = rooms[index].lines.lastIndex(where: { $0.isMessage && $0.seq == seq }) else { return false }
        selectRoom(at: index)
        rooms[index].searchMatch = (line, term)
        rooms[index].scrollAnchor = line == rooms[index].lines.count - 1 ? nil : ScrollAnchor(lineIndex: line, hiddenRows: 0)
        return true
    }

    /// A view buffer (`=NAME`) of `lines` under a header, with their day rules, shown.
    private mutating func showView(_ name: String, _ lines: [ChatLine], header: String) {
        let name = ChatRoom.viewPrefix + name
        closeRoom(name)
        let index = openRoom(name)
        let headerLine = ChatLine(timestamp: lines.first?.timestamp ?? 0, nick: "", text: header + " (/close closes this view)", kind: .event)
        rooms[index].lines = [headerLine] + withDayChanges(lines.map { line in
            var copy = line
            if copy.kind == .ownPending { copy.kind = .ownConfirmed }
            return copy
        }, ruleOnTop: true).lines
        selectRoom(at: index)
    }
}
