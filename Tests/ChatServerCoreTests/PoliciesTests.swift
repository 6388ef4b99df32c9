import ChatProtocol
@testable import ChatServerCore
import Testing

/// ``Policies`` on its own: privileges, who may join and speak, which server ban applies, and
/// stored changes applied. The requests that reach them (`ban`, `mode`, `invite`, ...) are
/// `ModerationTests`' and `SharedModerationTests`'.
@Suite struct PoliciesTests {
    static func guest(peer: String = "PEER-G", address: String = "192.0.2.7", device: String? = nil) -> PolicySubject {
        PolicySubject(accountKey: nil, accountCreated: nil, peer: peer, address: address, device: device)
    }

    static func member(_ name: String, created: Int64 = 100, address: String = "192.0.2.9") -> PolicySubject {
        PolicySubject(accountKey: ChatValidation.nickKey(name), accountCreated: created, peer: "PEER-\(name.uppercased())",
                      address: address, device: nil)
    }

    static func ban(_ label: String, account: String? = nil, peer: String? = nil, address: String? = nil, device: String? = nil,
                    ts: Int64 = 500) -> Ban {
        Ban(label: label, account: account, peer: peer, address: address, device: device, reason: "", by: "op", ts: ts)
    }

    /// Server operator, owner, room operator, member, guest: in that order, case-insensitively.
    @Test func privilegesRankAsTheProtocolSays() {
        let policies = Policies(operators: ["Root"])
        let settings = RoomSettings(owner: "Alice", operators: ["bob": "Bob"])
        #expect(policies.privilege(ofAccount: "root", in: settings) == .serverOperator)
        #expect(policies.privilege(ofAccount: "alice", in: settings) == .owner)
        #expect(policies.privilege(ofAccount: "bob", in: settings) == .roomOperator)
        #expect(policies.privilege(ofAccount: "carol", in: settings) == .member)
        #expect(policies.privilege(ofAccount: nil, in: settings) == .guest)
        #expect(policies.isServerOperator("root") && !policies.isServerOperator(nil))
    }

    /// Bans first (server operators pass them), then the registered mode, then the invite mode
    /// (room operators pass the modes); an invite by account, peer id or device lets one in.
    @Test func joinDenialsInTheirOrder() {
        let policies = Policies(operators: ["root"])
        var settings = RoomSettings(owner: "alice", operators: ["bob": "bob"], modes: [.registered, .invite])
        settings.bans.insert(Self.ban("carol", account: "carol"))
        settings.bans.insert(Self.ban("root", account: "root"))
        #expect(policies.joinDenial(of: Self.member("carol"), settings: settings, room: "r")?.0 == .banned)
        #expect(policies.joinDenial(of: Self.member("root"), settings: settings, room: "r") == nil)
        #expect(policies.joinDenial(of: Self.guest(), settings: settings, room: "r")?.0 == .accountRequired)
        #expect(policies.joinDenial(of: Self.member("dave"), settings: settings, room: "r")?.0 == .notInvited)
        #expect(policies.joinDenial(of: Self.member("bob"), settings: settings, room: "r") == nil)
        settings.invites = [.account("dave"), .peer("PEER-ERIN"), .device("digest-f")]
        #expect(policies.joinDenial(of: Self.member("dave"), settings: settings, room: "r") == nil)
        #expect(policies.joinDenial(of: Self.member("erin"), settings: settings, room: "r") == nil)
        var frank = Self.member("frank")
        frank.device = "digest-f"
        #expect(policies.joinDenial(of: frank, settings: settings, room: "r") == nil)
        #expect(policies.joinDenial(of: Self.member("gina"), settings: settings, room: "r")?.0 == .notInvited)
    }

    /// A guest ban by address holds for guests there and for accounts registered after it, not
    /// for an older account that shares the address; a banned guest's device is matched too.
    @Test func guestBansSpareOlderAccounts() {
        let policies = Policies(operators: [])
        var settings = RoomSettings()
        settings.bans.insert(Self.ban("mallory", peer: "PEER-M", address: "198.51.100.1", device: "digest-m", ts: 500))
        #expect(policies.speakingDenial(of: Self.guest(address: "198.51.100.1"), in: "r", settings: settings)?.0 == .banned)
        #expect(policies.speakingDenial(of: Self.member("old", created: 100, address: "198.51.100.1"), in: "r", settings: settings) == nil)
        #expect(policies.speakingDenial(of: Self.member("new", created: 900, address: "198.51.100.1"), in: "r", settings: settings)?.0 == .banned)
        #expect(policies.isBanned(Self.guest(peer: "OTHER", address: "203.0.113.5", device: "digest-m"), in: settings))
        #expect(!policies.isBanned(Self.guest(peer: "OTHER", address: "203.0.113.5"), in: settings))
    }

    /// A server ban applies to whoever it matches, never to a server operator; stored changes of
    /// server bans and of held rooms apply, a room not held is left to be read whole.
    @Test func serverBansAndStoredChanges() {
        var policies = Policies(operators: ["root"], serverBans: [Self.ban("root", account: "root"), Self.ban("eve", account: "eve")])
        #expect(policies.serverBan(of: Self.member("eve"))?.label == "eve")
        #expect(policies.serverBan(of: Self.member("root")) == nil)
        policies.apply(.banRemoved(room: nil, label: "eve"))
        #expect(policies.serverBan(of: Self.member("eve")) == nil)
        policies.apply(.banAdded(room: nil, Self.ban("carol", account: "carol")))
        #expect(policies.serverBan(of: Self.member("carol")) != nil)
        policies.rooms["held"] = RoomSettings()
        policies.apply(.owner(room: "held", account: "alice"))
        policies.apply(.owner(room: "elsewhere", account: "alice"))
        #expect(policies.rooms["held"]?.owner == "alice")
        #expect(policies.rooms["elsewhere"] == nil)
    }
}
