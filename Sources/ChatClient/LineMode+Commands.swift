import CLIOptions
import ChatClientKit
import ChatProtocol
import ChatTUI

/// Line mode carries out the commands of the shared table (``ClientCommands``): requests go to
/// the session, answers to standard output, mistakes to standard error.
extension LineMode: CommandContext {
    var commandRoom: String? { currentRoom }
    var conversationNick: String? { nil }

    func roomInfo(_ room: String) -> RoomMembers.Info { session.members.info(of: room) }

    func note(_ text: String) {
        let now = unixMilliseconds()
        show(formatter.note(text, at: now), at: now)
    }

    func complain(_ text: String) {
        Console.error("chat-client: \(text)")
    }

    func request(_ message: ChatMessage, doing what: String) {
        request(message)
    }

    @discardableResult
    func request(_ message: ChatMessage) -> Bool {
        guard session.send(message) else {
            complain("too much waiting to be sent (\(Outbox.capacity) requests); not sent: \(message.password == nil ? message.text : message.type)")
            return false
        }
        return true
    }

    func say(_ text: String, action: Bool) {
        for piece in MessageSplitter.pieces(of: text, action: action) {
            sendMessage(.msg(room: currentRoom, text: piece.wire, id: ChatSession.randomPeerID()))
        }
    }

    /// `/msg #room TEXT`: to a room joined (or being joined), whichever is current.
    func say(_ text: String, inRoom room: String) {
        guard session.rooms.contains(where: { $0.name == room }) else { return complain("you are not in #\(room): /join \(room) first; nothing was sent") }
        for piece in MessageSplitter.pieces(of: text, action: false) {
            sendMessage(.msg(room: room, text: piece.wire, id: ChatSession.randomPeerID()))
        }
    }

    func sendPrivate(_ text: String, to nick: String) {
        for piece in MessageSplitter.pieces(of: text, action: false) {
            sendMessage(.dm(to: nick, text: piece.wire, id: ChatSession.randomPeerID()))
        }
    }

    private func sendMessage(_ message: ChatMessage) {
        guard request(message), let id = message.id else { return }
        sent[id] = message
    }

    func join(_ room: String) {
        currentRoom = room
        request(.join(room: room))
    }

    func part(_ room: String) {
        request(.part(room: room))
    }

    /// `/away [REASON]`, `/back`: said (issue 24, defect 6).
    func setAway(_ reason: String?) {
        session.setStatus(reason == nil ? "online" : "away", reason: reason)
        awayReason = reason
        if let reason {
            note("* you are away" + (reason.isEmpty ? "" : ": \(formatter.single(reason))"))
        } else {
            note("* you are back")
        }
    }

    /// The member list of the current room; of a room just joined, once the server's roster is
    /// in (issue 24, defect 13: an empty list came before `connected`).
    func who() {
        guard session.members.hasRoster(of: currentRoom) else {
            let joining = (session.outbox.waiting + session.outbox.inFlight).contains {
                $0.message.type == "join" && ChatValidation.normalizeRoom($0.message.roomOrDefault) == currentRoom
            }
            guard joining || session.rooms.contains(where: { $0.name == currentRoom }) || !session.everConnected else {
                return complain("not in #\(formatter.single(currentRoom)): /join it first")
            }
            pendingWho.insert(currentRoom)
            return
        }
        showMembers(of: currentRoom)
    }

    func showMembers(of room: String) {
        // Operators first, marked as the full-screen client marks them (@ operator, + logged in).
        let info = session.members.info(of: room)
        let operators = Set(info.operators.map { $0.lowercased() }), identified = Set(info.identified.map { $0.lowercased() })
        let members = MemberOrder.sorted(info.members, operators: operators, identified: identified).map { nick in
            MemberOrder.marks(nick, operators: operators, identified: identified, away: false) + formatter.single(nick)
        }
        note("#\(formatter.single(room)) members: \(members.joined(separator: " "))")
    }

    func sameNick(_ one: String, _ other: String) -> Bool { ChatValidation.nickKey(one) == ChatValidation.nickKey(other) }

    func history(_ count: Int?) {
        request(.history(room: currentRoom, limit: count))
    }

    func askForSecret(_ purpose: SecretPurpose) {
        awaitedSecret = purpose
        let suppression = EchoSuppression.begin()
        echo = suppression
        if suppression.isTerminal { Console.error(purpose.prompt(nick: session.nick) + ": ", newline: false) }
    }

    func secretEntered(_ password: String, for purpose: SecretPurpose) {
        awaitedSecret = nil
        echo?.end()
        if echo?.isTerminal == true { Console.error("") }
        echo = nil
        guard ChatValidation.isAcceptablePassword(password) else { return complain("a password is 8 to 256 bytes; nothing was sent") }
        request(purpose.request(password: password).message)
    }

    func isFile(_ path: String) -> Bool { FileTransfers.isReadableFile(path) }

    func send(_ path: String, to nick: String?) {
        do {
            let number = try session.files.upload(path, room: nick == nil ? currentRoom : nil, to: nick)
            started(number, "sending \(formatter.single(path)) as [transfer \(number)]")
        } catch {
            status = 1
            complain("cannot send \(path): \(error)")
        }
    }

    func get(_ number: Int, into folder: String?) {
        guard let shared = session.files.sharedFiles[number] else { return complain("there is no shared file \(number)") }
        let target = folder ?? ClientPaths.downloadFolder()
        ClientPaths.makeDirectory(target)
        do {
            let transfer = try session.files.download(shared, into: target)
            started(transfer, "getting \(formatter.single(shared.text)) as [transfer \(transfer)]")
        } catch {
            status = 1
            complain("cannot get file \(number) into \(target): \(error)")
        }
    }

    func cancel(_ number: Int) {
        if !session.files.cancel(number) { complain("there is no transfer \(number)") }
    }

    func quit(_ message: String?) {
        quitMessage = message
        endOfInput()
    }

    func ignore(_ nick: String?) { note("* " + ignoring.ignore(nick, ownNick: session.nick)) }

    func unignore(_ nick: String) { note("* " + ignoring.unignore(nick)) }

    /// `/lastlog WORD`: the lines printed with WORD (of the last 2,000), printed again.
    func lastlog(_ word: String) {
        let needle = word.lowercased()
        let found = printed.suffix(Self.printedLimit).filter { $0.lowercased().contains(needle) }
        note("* \(found.count) line\(found.count == 1 ? "" : "s") with '\(formatter.single(word))':")
        for line in found { Console.line(line) }
    }

    func transfers() {
        for line in transferHistory.lines(running: Array(session.files.transfers.values), now: .now(), neutralize: formatter.single) { note(line) }
    }

    /// `/urls`: the web addresses of the lines printed (of the last 2,000), each on a line of its
    /// own, whole.
    func urls() {
        let found = printed.suffix(Self.printedLimit).flatMap { URLFinder.urls(in: $0) }
        note("* \(found.count) web address\(found.count == 1 ? "" : "es"):")
        for url in found { Console.line(url) }
    }

    func smartFilter(_ on: Bool?) {
        if let on { smartFilter.isOn = on }
        note("* " + SmartFilter.stateText(smartFilter.isOn))
    }

    /// `/send` and `/get` accepted a transfer.
    private func started(_ number: Int, _ text: String) {
        guard options.json else { return complain(text) }
        if let transfer = session.files.transfers[number] { Console.line(TransferEventJSON.started(transfer)) }
    }
}
