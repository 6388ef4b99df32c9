import ChatProtocol
import QuicEngine

/// What the server says: answers to the outbox's requests, the rooms the session is in, the
/// account, refusals of the hello.
extension SessionCore {
    /// A message from the current connection.
    public mutating func received(_ message: ChatMessage, on channel: ChatSession.Channel, now: MonotonicTime) -> [Action] {
        // An older server does not know `quit`: the session closes the connection itself.
        if let id = quitRequestID, message.messageType == .error, message.id == id { return quit() }
        if track(message, now: now) { actions.append(.deliver(message, channel)) }
        return taken()
    }

    /// Follows what the server says; false for a message the session handled itself (a
    /// `rate-limited` refusal of something it sends again).
    private mutating func track(_ message: ChatMessage, now: MonotonicTime) -> Bool {
        for room in members.apply(message, ownNick: nick) { actions.append(.membersChanged(room)) }
        if let seq = message.resumeSeq, let room = message.room, let index = rooms.firstIndex(where: { $0.name == room }) {
            rooms[index].lastSeq = max(rooms[index].lastSeq ?? seq, seq)
        }
        let isLive = message.replay != true
        let room = message.roomOrDefault
        if message.messageType == .dm, let seq = message.seq, message.room == nil {
            let other = ChatValidation.nickKey(Self.same(message.sender, nick) ? message.to ?? message.sender : message.sender)
            conversationSeqs[other] = max(conversationSeqs[other] ?? seq, seq)
            if message.replay == true { conversationPages[other, default: 0] += 1 }
        }
        switch message.messageType {
        case .read:
            if let read = message.read, let place = ReadMarkers.place(of: message) { readMarkers.learn(read, of: place) }
        case .welcome:
            welcomed(message, now: now)
        case .joined where isLive && Self.same(message.sender, nick):
            if !rooms.contains(where: { $0.name == room }) { rooms.append((room, message.seq)) }
            if helloRoomUnanswered == room { helloRoomUnanswered = nil }
            removedAt[room] = nil
            answered(now: now) { $0.type == MessageType.join.rawValue && ChatValidation.normalizeRoom($0.roomOrDefault) == room }
        case .left where isLive && Self.same(message.sender, nick):
            rooms.removeAll { $0.name == room }
            members.forget(room)
            answered(now: now) { $0.type == MessageType.part.rawValue && ChatValidation.normalizeRoom($0.roomOrDefault) == room }
        case .nick where Self.same(message.sender, nick):
            nick = message.text
            answered(now: now) { $0.type == MessageType.nick.rawValue && Self.same($0.text, message.text) }
        case .historyEnd:
            if let with = message.with { nextConversationPage(with) }
            answered(.history, about: message, now: now)
        case .found:
            answered(.search, about: message, now: now)
        case .account:
            account = message.account
            for room in members.setIdentified(nick, message.account != nil) { actions.append(.membersChanged(room)) }
            // A password that logged in (or registered, or changed) logs in again after a reconnect.
            if let entry = outbox.answered(where: { Self.accountRequests.contains($0.type) }), let password = entry.message.password {
                helloPassword = password
            }
            flush(now: now)
        case .kicked where RoomMembers.removesOwnNick(message, nick), .banned where RoomMembers.removesOwnNick(message, nick):
            // Out of the room for good: no re-join after a reconnect. A later /join of it asks
            // only for what came after.
            if let seen = rooms.first(where: { $0.name == room })?.lastSeq { removedAt[room] = seen }
            rooms.removeAll { $0.name == room }
            answerModeration(message, now: now)
        case .topic, .mode, .op, .deop, .kicked, .banned, .unbanned, .invite, .rooms, .whois:
            answerModeration(message, now: now)
        case .ack:
            if let id = message.id { outbox.answered(id: id) }
            flush(now: now)
        case .error:
            return receivedError(message, now: now)
        default:
            break
        }
        return true
    }

    private mutating func receivedError(_ message: ChatMessage, now: MonotonicTime) -> Bool {
        // A refusal of the hello's room, or of anything: the hello's room is not waited for any more.
        helloRoomUnanswered = nil
        if message.code == ErrorCode.rateLimited.rawValue, let id = message.id, outbox.refused(id: id, now: now) {
            flush(now: now)
            return false
        }
        // The server could not store it now (a node that lost its store): sent again later, with
        // the same id, unless given up after many tries (then it is shown).
        if isConnected, message.code == ErrorCode.unavailable.rawValue, let id = message.id, outbox.unavailable(id: id, now: now).kept {
            flush(now: now)
            return false
        }
        if let id = message.id, outbox.answered(id: id) != nil {
            flush(now: now)
        } else if !isConnected, Self.helloRefusals.contains(message.code ?? "") {
            setState(.refused(code: message.code ?? "error", text: message.text))
            return false
        } else if !isConnected, ChatSession.isRefusedForNow(message) {
            // The server could not take the hello now (busy checking passwords): again shortly,
            // as this session says it then (``retry(nick:password:now:)`` may change the nick).
            helloAgainAt = now + .milliseconds(UInt64(Double.random(in: 500...1500, using: &random)))
            return false
        }
        return true
    }

    /// Errors that answer a hello (PROTOCOL.md sections 3 and 7): the connection stays open for
    /// another `join`. (`rate-limited` and `unavailable` before the welcome are a busy server:
    /// the hello is sent again by itself.)
    /// (`too-many-devices`, version 1.2 section 17: the account has its most devices connected.)
    static let helloRefusals: Set<String> = ["bad-nick", "bad-room", "bad-login", "nick-registered", "account-required", "too-many-devices"]

    /// Requests answered by `account`.
    static let accountRequests: Set<String> = ["register", "login", "password", "certificate"]

    /// The event (or notice) that answers each moderation request.
    static let moderationAnswers: [String: String] = [
        "claim": "op", "topic": "topic", "mode": "mode", "op": "op", "deop": "deop", "kick": "kicked", "ban": "banned",
        "unban": "unbanned", "invite": "invite", "rooms": "rooms", "whois": "whois",
    ]

    /// A moderation event or answer of ours answers the oldest request of its kind in its room (no
    /// room: a server-wide one); `rooms` and `whois` have no sender to check.
    private mutating func answerModeration(_ message: ChatMessage, now: MonotonicTime) {
        let isDirectory = message.messageType == .rooms || message.messageType == .whois
        guard isDirectory || Self.same(message.sender, nick) else { return }
        let room = message.room
        answered(now: now) { request in
            Self.moderationAnswers[request.type] == message.type
                && (isDirectory || request.room.flatMap(ChatValidation.normalizeRoom) == room)
        }
    }

    private mutating func welcomed(_ message: ChatMessage, now: MonotonicTime) {
        nick = message.sender
        account = message.account
        serverName = message.text
        features = Set(message.features ?? [])
        rotation.connected()
        everConnected = true
        outbox.connected(now: now, spent: 2)
        var first: [ChatMessage] = rooms.dropFirst().map { .join(room: $0.name, since: $0.lastSeq) }
        if let room = unwantedHelloRoom { first.insert(.part(room: room), at: 0) }
        first += keptPlaces(message)
        outbox.enqueueFirst(first)
        if status != helloStatus || awayReason != helloAway {
            outbox.enqueue(statusMessage, on: .presence)
            helloStatus = status
            helloAway = awayReason
        }
        setState(.connected)
        flush(now: now)
    }

    /// Version 1.2 (sections 14 and 17): the rooms the account keeps that this session is not in
    /// are joined with `since` = the read marker (what was read before stays on the server,
    /// PgUp brings it; nothing read yet: the room's last 20), and each conversation listed
    /// (those with an unread `dm`) is read from history after the newer of the read marker and
    /// the last message this session saw there (none read: its newest 50). The markers are
    /// learnt.
    private mutating func keptPlaces(_ welcome: ChatMessage) -> [ChatMessage] {
        var requests: [ChatMessage] = []
        let waiting = Set((outbox.waiting + outbox.inFlight).filter { $0.message.type == MessageType.join.rawValue }
            .compactMap { ChatValidation.normalizeRoom($0.message.roomOrDefault) })
        for listing in welcome.rooms ?? [] {
            guard let position = listing.position else { continue }
            readMarkers.learn(position.read, of: .room(listing.room))
            guard !rooms.contains(where: { $0.name == listing.room }), !waiting.contains(listing.room),
                  helloRoomUnanswered != listing.room, unwantedHelloRoom != listing.room else { continue }
            requests.append(.join(room: listing.room, since: position.read > 0 ? position.read : nil))
        }
        for conversation in welcome.conversations ?? [] {
            let read = conversation.position.read
            readMarkers.learn(read, of: .conversation(conversation.with))
            let after = max(read, conversationSeqs[ChatValidation.nickKey(conversation.with)] ?? 0)
            guard after < conversation.position.seq else { continue }
            requests.append(after > 0 ? ChatMessage(type: MessageType.history.rawValue, since: after, with: conversation.with)
                : ChatMessage(type: MessageType.history.rawValue, limit: Self.conversationHistory, with: conversation.with))
        }
        return requests
    }

    /// A conversation's `history` `since` ended: a full page may have more after it, asked for
    /// after the last seq seen there (section 17: "the client pages forward").
    private mutating func nextConversationPage(_ with: String) {
        let key = ChatValidation.nickKey(with)
        let brought = conversationPages.removeValue(forKey: key) ?? 0
        let wasSince = outbox.inFlight.contains { $0.message.type == MessageType.history.rawValue && $0.message.since != nil
            && $0.message.with.map(ChatValidation.nickKey) == key }
        guard wasSince, brought >= Self.conversationPage, let last = conversationSeqs[key] else { return }
        outbox.enqueue(ChatMessage(type: MessageType.history.rawValue, since: last, with: with))
    }

    /// Messages of a conversation never read asked for at a `welcome`.
    static let conversationHistory = 50

    /// The oldest request of `type` about the room or conversation `answer` names: a
    /// conversation's (version 1.2) answer carries `with`, a room's `room`.
    private mutating func answered(_ type: MessageType, about answer: ChatMessage, now: MonotonicTime) {
        let with = answer.with.map(ChatValidation.nickKey)
        let room = answer.roomOrDefault
        answered(now: now) { request in
            guard request.type == type.rawValue else { return false }
            if let with { return request.with.map(ChatValidation.nickKey) == with }
            return request.with == nil && ChatValidation.normalizeRoom(request.roomOrDefault) == room
        }
    }

    private mutating func answered(now: MonotonicTime, where matches: (ChatMessage) -> Bool) {
        outbox.answered(where: matches)
        flush(now: now)
    }
}
