import ChatServerCore
@testable import ClusterStore
import RedisClient
import Testing

/// What a node writes into Redis and reads back: inbox messages, event metas, member records,
/// bans and settings, file records, the directory's replies. Records written by earlier versions
/// still read.
@Suite struct ClusterFormatTests {
    @Test func inboxMessagesRoundTrip() {
        let messages: [NodeMessage] = [.dm(to: "alice", payload: Array(#"{"type":"dm"}"#.utf8)),
                                       .kick(nick: "bob", reason: "flooding / again", by: "op"),
                                       .kick(nick: "bob", reason: "", by: "op"),
                                       .invite(nick: "carol", device: "d3", payload: Array(#"{"type":"invite"}"#.utf8)),
                                       .fileNotice(nick: "dave", device: "d4", payload: Array("{\"a\":\"b\\nc\"}".utf8))]
        for message in messages {
            let (meta, payload) = InboxMessage.encode(message)
            #expect(!meta.contains(UInt8(ascii: " ")))
            #expect(InboxMessage.decode(meta: meta, payload: payload) == .message(message))
        }
        // A dm's dedupe key is the append's, not the message's.
        let (meta, payload) = InboxMessage.encode(.dm(to: "alice", payload: [1], dedupe: "PEER:7"))
        #expect(InboxMessage.decode(meta: meta, payload: payload) == .message(.dm(to: "alice", payload: [1])))
    }

    /// A REPLACED names the device by its digest only: the receiver checks it against its connection.
    @Test func aReplaceCarriesTheDevicesDigest() {
        let (meta, payload) = InboxMessage.encode(.replace(client: 42, peer: "ab12cd"))
        #expect(String(decoding: meta, as: UTF8.self) == "replace/42")
        #expect(String(decoding: payload, as: UTF8.self) == PeerDigest.of("AB12CD"))
        #expect(!String(decoding: payload, as: UTF8.self).contains("ab12cd"))
        #expect(InboxMessage.decode(meta: meta, payload: payload) == .replace(client: 42, device: payload))
    }

    @Test func strangeInboxMessagesAreNotDelivered() {
        #expect(InboxMessage.decode(meta: Array("dm".utf8), payload: []) == .malformed)
        #expect(InboxMessage.decode(meta: Array("shout/alice".utf8), payload: []) == .unknown(kind: "shout"))
        #expect(InboxMessage.decode(meta: Array("replace/not-a-client".utf8), payload: []) == .ignored)
        #expect(InboxMessage.decode(meta: Array("invite/carol".utf8), payload: Array("no newline".utf8)) == .ignored)
        #expect(InboxMessage.decode(meta: Array("file/carol".utf8), payload: []) == .ignored)
    }

    @Test func peerDigestsIgnoreCase() {
        #expect(PeerDigest.of("abcdef") == PeerDigest.of("ABCDEF"))
        #expect(PeerDigest.of("abcdef").count == 32)
        #expect(PeerDigest.of("abcdef") != PeerDigest.of("abcdeg"))
    }

    /// `KIND/NODE/CLIENT/STATUS/TOKEN`; the client and token only for this node's own events;
    /// metas written before the token (and before the status) still read.
    @Test func eventMetasRead() {
        func event(_ meta: String) -> RoomEvent { RoomEvent(seq: 9, meta: Array(meta.utf8), payload: Array("{}".utf8)) }
        let own = EventMeta.sharedEvent(room: "lobby", event("joined/n1/17/away/5"), node: "n1")
        #expect(own == SharedRoomEvent(room: "lobby", seq: 9, kind: .joined, origin: 17, append: 5, payload: Array("{}".utf8), memberStatus: .away))
        let theirs = EventMeta.sharedEvent(room: "lobby", event("msg/n2/17//5"), node: "n1")
        #expect(theirs == SharedRoomEvent(room: "lobby", seq: 9, kind: .msg, origin: nil, append: nil, payload: Array("{}".utf8)))
        let older = EventMeta.sharedEvent(room: "lobby", event("left/n1/3"), node: "n1")
        #expect(older?.origin == 3)
        #expect(older?.append == nil)
        #expect(older?.memberStatus == nil)
        #expect(EventMeta.sharedEvent(room: "lobby", event("nick/n1/3/offline"), node: "n1")?.memberStatus == .offline)
        let unowned = EventMeta.sharedEvent(room: "lobby", event("topic/n1/"), node: "n1")
        #expect(unowned != nil)
        #expect(unowned?.origin == nil)
        #expect(EventMeta.sharedEvent(room: "lobby", event("nonsense/n1/3"), node: "n1") == nil)
        #expect(EventMeta.sharedEvent(room: "lobby", event("msg/n1"), node: "n1") == nil)
    }

    @Test func memberRecordsRoundTrip() {
        let format = MemberRecordFormat(node: "n1")
        let member = MemberRecord(nick: "Alice", account: "alice", status: .away, peer: "ab12")
        let text = format.text(member)
        #expect(text == "n1/\(PeerDigest.of("ab12")) away Alice alice")
        #expect(format.record(Array(text.utf8)) == MemberRecord(nick: "Alice", account: "alice", status: .away, onThisNode: true,
                                                                device: PeerDigest.of("ab12")))
        let guest = MemberRecordFormat(node: "n2").record(Array("n1/- online Bob -".utf8))
        #expect(guest == MemberRecord(nick: "Bob", account: nil, status: .online, onThisNode: false, device: nil))
        #expect(MemberRecordFormat.node(ofRecord: Array("n3/d1 online Carol -".utf8)) == "n3")
        #expect(format.record(Array("n1/d1 sleeping Carol -".utf8)) == nil)
        #expect(format.record(Array("n1/d1 online Carol".utf8)) == nil)
        #expect(format.membersChange(.removeIfHeld(["alice"], by: .thisNode(peer: "ab12")))
                == .removeHeld(byPrefix: "n1/\(PeerDigest.of("ab12")) ", keys: ["alice"]))
        #expect(format.membersChange(.removeIfHeld(["alice"], by: .node("n2"))) == .removeHeld(byPrefix: "n2/", keys: ["alice"]))
    }

    /// Bans with and without a device (written before issue 23), and a room's settings.
    @Test func bansAndSettingsRead() {
        let ban = Ban(label: "Eve", account: nil, peer: "pp", address: "192.0.2.9", device: "d9", reason: "spam\u{20}again", by: "op", ts: 77)
        #expect(PolicyFormat.decodeBan(Array(PolicyFormat.encode(ban).utf8)) == ban)
        let older = Ban(label: "Eve", account: "eve", peer: nil, address: nil, device: nil, reason: "r", by: "op", ts: 1)
        #expect(PolicyFormat.encode(older).split(separator: "\t", omittingEmptySubsequences: false).count == 7)
        #expect(PolicyFormat.decodeBan(Array(PolicyFormat.encode(older).utf8)) == older)
        #expect(PolicyFormat.decodeBan(Array("Eve\t\t\t\top\tnot-a-time\tr".utf8)) == nil)
        let fields: [String: [UInt8]] = ["owner": Array("alice".utf8), "topic": Array("12 bob hello there".utf8), "mode:moderated": Array("1".utf8),
                                         "op:carol": Array("Carol".utf8), "ban:eve": Array(PolicyFormat.encode(older).utf8),
                                         "invite:a:dave": Array("1".utf8), "invite:d:d5": Array("1".utf8)]
        let settings = PolicyFormat.settings(from: fields)
        #expect(settings.owner == "alice")
        #expect(settings.topic == RoomTopic(text: "hello there", setBy: "bob", ts: 12))
        #expect(settings.operators == ["carol": "Carol"])
        #expect(settings.invites == [.account("dave"), .device("d5")])
        #expect(PolicyFormat.serverBans(.texts(["eve", PolicyFormat.encode(older)])) == [older])
        #expect(PolicyFormat.serverBans(.status("OK")) == nil)
    }

    /// Device and nick leases; device leases written before issue 23 (no account, no address) and
    /// not completed yet (a hello without its nick) still read.
    @Test func identityLeasesRead() {
        let format = LeaseFormat(node: "n1")
        let lease = format.deviceLease(client: 17, nick: "Alice", account: "alice", address: "192.0.2.1")
        #expect(lease == "n1/17/Alice/alice/192.0.2.1")
        #expect(lease.hasPrefix(format.connectionHolder(17)))
        #expect(format.peerHolder(lease) == PeerHolder(node: "n1", client: 17, nick: "Alice", account: "alice", isThisNode: true))
        #expect(LeaseFormat(node: "n2").peerHolder("n1/17/Bob/-/") == PeerHolder(node: "n1", client: 17, nick: "Bob", isThisNode: false))
        #expect(format.peerHolder("n1/17/") == PeerHolder(node: "n1", client: 17, nick: "", isThisNode: true))
        #expect(format.peerHolder("n1/17") == nil)
        #expect(format.peerHolder("n1/x/Alice") == nil)
        #expect(format.nickHolder(device: "d1") == "n1/d1")
        #expect(format.nickHolder(lease: "n2/d1") == NickHolder(node: "n2", isThisNode: false, device: "d1"))
        #expect(format.nickHolder(lease: "n1") == NickHolder(node: "n1", isThisNode: true, device: nil))
        #expect(format.nickHolder(lease: nil) == nil)
        #expect(LeaseFormat.nodeAndDevice(nickLease: "n2/d1")! == ("n2", "d1"))
        #expect(LeaseFormat.nodeAndDevice(nickLease: "n2") == nil)
        #expect(format.deviceHolder(node: "n2", device: "d1", deviceLease: "n2/17/Alice/alice/192.0.2.1")
                == DeviceHolder(node: "n2", isThisNode: false, device: "d1", account: "alice", address: "192.0.2.1"))
        #expect(format.deviceHolder(node: "n1", device: "d1", deviceLease: "n1/17/Alice")
                == DeviceHolder(node: "n1", isThisNode: true, device: "d1", account: nil, address: nil))
        #expect(format.deviceHolder(node: "n1", device: "d1", deviceLease: "n1/17/Bob/-/")
                == DeviceHolder(node: "n1", isThisNode: true, device: "d1", account: nil, address: ""))
    }

    @Test func fileRecordsRoundTrip() {
        let file = StoredFile(id: "f1", sha256: "aa", size: 10, name: "a b.txt", room: "lobby", seq: 4, ts: 99, sender: "Alice",
                              senderAccount: "alice", uploaderPeer: "p1", uploadID: "u1", owner: "alice", address: "192.0.2.1",
                              recipientDevice: "d2")
        #expect(FileRecordFormat.decodeFile(Array(FileRecordFormat.encode(file).utf8)) == file)
        // 16 fields: before the recipient's device and the address.
        let fields = FileRecordFormat.encode(file).split(separator: "\t", omittingEmptySubsequences: false).prefix(16).joined(separator: "\t")
        let older = FileRecordFormat.decodeFile(Array(fields.utf8))
        #expect(older?.address == "")
        #expect(older?.recipientDevice == nil)
        let partial = PartialUpload(key: "k1", peer: "p1", id: "u1", owner: "alice", address: "192.0.2.1", room: nil, recipient: "bob",
                                    name: "n", size: 100, sha256: "bb", updated: 5, charged: 60)
        #expect(FileRecordFormat.decodePartial(Array(FileRecordFormat.encode(partial).utf8)) == partial)
        let eleven = FileRecordFormat.encode(partial).split(separator: "\t", omittingEmptySubsequences: false).prefix(11).joined(separator: "\t")
        #expect(FileRecordFormat.decodePartial(Array(eleven.utf8))?.charged == 100)
        #expect(FileRecordFormat.uploadKey(peer: "p1", id: "u1") == PeerDigest.of("p1") + ":u1")
    }

    @Test func directoryRepliesRead() throws {
        #expect(try NodeDirectoryCommands.heartbeat(.integer(5)).get() == .alive(deadline: 5))
        #expect(try NodeDirectoryCommands.heartbeat(.integer(-1)).get() == .reaped)
        #expect(try NodeDirectoryCommands.heartbeat(.array([.integer(-2), .integer(9), .text("t")])).get() == .taken(deadline: 9, holder: "t"))
        #expect((try? NodeDirectoryCommands.heartbeat(.status("OK")).get()) == nil)
        #expect(try NodeDirectoryCommands.claims(.texts(["a", "lost", "b", "stopped"])).get()
                == [NodeDirectory.Claim(node: "a", stopped: false), NodeDirectory.Claim(node: "b", stopped: true)])
        #expect((try? NodeDirectoryCommands.claims(.texts(["a"])).get()) == nil)
        #expect(try NodeDirectoryCommands.members(.texts(["a", "12.0", "b", "13"])).get() == ["a": 12, "b": 13])
        #expect(ClusterNode.evictionPolicy(inInfo: Array("# Memory\r\nused_memory:1\r\nmaxmemory_policy:volatile-lru\r\n".utf8)) == "volatile-lru")
        #expect(ClusterNode.evictionPolicy(inInfo: Array("# Memory\r\n".utf8)) == nil)
    }
}
