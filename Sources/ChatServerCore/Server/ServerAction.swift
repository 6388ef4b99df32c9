import ChatProtocol

/// What the glue must do after an event: the core owns no sockets, so every effect it wants
/// on the world is one of these, in the order they must happen.
public enum ServerAction: Sendable {
    /// Write the payload to one of the client's streams. `live` is false for replay and
    /// `history` answers, which are bounded by their counts and do not count toward the
    /// slow-consumer limit (PROTOCOL.md section 5).
    case send(ClientID, ChatStreamKind, SharedPayload, live: Bool)
    /// Send the payload as one DATAGRAM frame; it may be lost.
    case datagram(ClientID, SharedPayload)
    /// Close the connection with CONNECTION_CLOSE carrying `code`. The core has already
    /// forgotten the client: a later `disconnected` call for it does nothing.
    case close(ClientID, CloseCode, reason: String)
    /// Run slow password work off the event loop and hand the outcome back with
    /// ``ChatServerState/passwordTaskFinished(_:_:now:)``, whatever happens to the client meanwhile.
    case password(PasswordTask)
    /// Write the payload (an `error`, an upload's `ack`, a download's refusal) on a file stream,
    /// then FIN; with `stopSending`, also STOP_SENDING with 0x1, for a body the server will not
    /// read (PROTOCOL.md section 9).
    case endFileStream(FileStreamKey, SharedPayload, stopSending: Bool)
    /// Receive an accepted upload's body to disk off the event loop; its end comes back as
    /// ``ChatServerState/uploadEnded(_:_:now:)``.
    case receiveUpload(FileStreamKey, UploadJob)
    /// Stop receiving an upload (another stream took over its `id`): reset the stream, close the
    /// partial file as it is, report nothing. Ordered before any later work on the same partial.
    case abandonUpload(FileStreamKey)
    /// Send a stored file's bytes on a download stream, read from disk off the event loop.
    case sendDownload(FileStreamKey, DownloadJob)
    /// Remove bytes from disk: evicted or unused content, an expired or failed partial upload.
    case discardFileBytes(FileBytes)
    /// With a shared room log: store this event (seq, history, publish in one step); the outcome
    /// comes back through ``ChatServerState/roomEventAppended(_:_:now:)``.
    case appendRoomEvent(RoomEventAppend)
    /// With a shared room log: read stored events; the answer comes back through
    /// ``ChatServerState/roomEventsRead(_:_:now:)`` (retried by the glue while the log is down,
    /// within reason: reads change nothing).
    case readRoomEvents(RoomEventRead)
    /// With a shared room log: deliver every event of the room with seq greater than `after`, in
    /// seq order, through ``ChatServerState/roomEventDelivered(_:now:)`` (the room has a member here now).
    case followRoom(String, after: Int64)
    /// With a shared room log: the room has nobody here any more; stop delivering its events.
    case unfollowRoom(String)
    /// With a shared room log: read the room's members on every node and its settings, with the
    /// seq they are as of; the answer comes back through
    /// ``ChatServerState/roomStateRead(_:seq:members:settings:now:)``.
    case readRoomState(UInt64, room: String)
    /// With a shared store: store a change that no room event announces (an invite, a server
    /// ban or its lifting); a server ban is also told to the other nodes.
    case writePolicy(PolicyChange)
    /// With a shared store, a hello: take the peer id's lease for this connection unless a session
    /// logged in to an account other than `account` (the key of the account this connection
    /// proved, nil for none) holds it (docs/PROTOCOL.md sections 7-8, item 11); then the first
    /// nick no other device holds, the nick the device held through another node first, then
    /// `candidates`; and the peer id's lease completed as ``recordPeer(peer:client:nick:account:address:)``
    /// would. One script on one Redis (issue 26, item 5). The answer comes back through
    /// ``ChatServerState/helloClaimed(_:_:now:)``.
    case claimHello(UInt64, peer: String, client: ClientID, account: String?, candidates: [String], address: String)
    /// With a shared store: take the first nick of `candidates` that no other device holds (one
    /// held by the same peer id through another node is taken over); the answer comes back
    /// through ``ChatServerState/nickClaimed(_:_:now:)``.
    case claimNick(UInt64, candidates: [String], peer: String)
    /// With a shared store: the peer id's lease now names this connection, its nick, its account
    /// key (nil for a guest) and its address (empty when exempt), for other nodes to find and for
    /// a takeover to check the account it must prove.
    case recordPeer(peer: String, client: ClientID, nick: String, account: String?, address: String)
    /// With a shared store: give up a nick's lease, and with `andPeer` the peer id's, if this
    /// node still holds them for `peer`.
    case releaseIdentity(peer: String, client: ClientID, nick: String, andPeer: Bool)
    /// With a shared store: which node holds `nick`; through ``ChatServerState/nickLookedUp(_:_:now:)``.
    case lookUpNick(UInt64, nick: String)
    /// With a shared store: the device holding `nick`, with its node, account and address (its
    /// nick's lease, then its peer id's); through ``ChatServerState/deviceLookedUp(_:_:now:)``.
    case lookUpDevice(UInt64, nick: String)
    /// With a shared store: the stamp (`ts`) of a `dm` this peer already sent with this id, through
    /// any node; through ``ChatServerState/directReceiptLookedUp(_:_:now:)``.
    case lookUpDirectReceipt(UInt64, peer: String, id: String)
    /// With a shared store: a `dm` with an id was delivered, stamped `ts`: its receipt, for a resend
    /// through any node (behind: nobody waits for it).
    case storeDirectReceipt(peer: String, id: String, ts: Int64)
    /// With a shared store: put a message in a node's inbox; with a token, whether it was stored
    /// comes back through ``ChatServerState/nodeMessageSent(_:_:now:)``.
    case sendToNode(UInt64?, node: String, NodeMessage)
    /// With a shared store: a local user's record changed (its status, its account after a
    /// register or login): for the other nodes and the records of its rooms.
    case publishMember(MemberRecord, rooms: [String])
    /// With a shared store: read these accounts (and their certificates) into the node's cache;
    /// through ``ChatServerState/accountsLoaded(_:_:now:)``.
    case loadAccounts(UInt64, names: [String])
    /// With a shared store: change an account; through
    /// ``ChatServerState/accountWritten(_:_:_:now:)``, and the other nodes are told.
    case writeAccount(UInt64, AccountWrite)
    /// With a shared store: a typing indicator (a datagram's JSON) for the room's members on other
    /// nodes; published, never stored.
    case publishTyping(room: String, SharedPayload)
    /// With a shared store: count a password attempt for its account and its address before its
    /// hash runs, in one step on the store, unless either has had `limit` counted within the
    /// window (PROTOCOL.md section 7, across every node); the answer comes back through
    /// ``ChatServerState/loginAttemptReserved(_:_:now:)``.
    case reserveLoginAttempt(LoginAttempt, limit: Int, windowMilliseconds: Int64)
    /// With a shared store: take back a counted attempt (its password was right, its check could
    /// not be made, or it was never checked); nobody waits for it.
    case releaseLoginAttempt(LoginAttempt)
    /// With a shared store: read file records (by id, by upload, what each scope holds) for a
    /// file stream header; through ``ChatServerState/filesLoaded(_:_:now:)``.
    case loadFiles(UInt64, FileQuery)
    /// With a shared store: write interrupted-upload records (behind: nobody waits for them),
    /// then evict stored files while distinct content and every upload's charge pass `maxBytes`;
    /// content no record uses any more comes back through ``ChatServerState/contentEvicted(_:)``.
    case writePartialUploads([PartialUploadWrite], maxBytes: Int64)
    /// With a shared store: store a file's record, evicting stored files while distinct content
    /// and every upload's charge pass `maxBytes` (the party holding the most first, PROTOCOL.md
    /// section 9 notes); through ``ChatServerState/fileRecordStored(_:_:now:)``.
    case storeFileRecord(UInt64, StoredFile, maxBytes: Int64)
    /// A line for the operator console: the answer to a command whose outcome came later (a
    /// console `register` stored through the shared store, say).
    case consoleLine(String)
    /// One log line: an event name and its details.
    case log(LogLevel, String, [String: String])
}
