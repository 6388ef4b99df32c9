import ChatProtocol
import ChatServerCore
import ClusterStore

/// Server operators' names on a node of several (issue 23, finding 4, second look). A node
/// reserves an operator's name only while it names it itself (`--operator`), so a node that does
/// not (another configuration, or one not yet reloaded while the nodes are reloaded one after
/// another) gave the name to a guest, who registered it there and was a server operator through
/// the nodes that name it. Each node therefore makes every operator name it is given that is no
/// account yet an account: without a credential (what the console's `unregister` leaves), or
/// bound to the certificate `--operator NAME=sha256:...` names. Every node then refuses it to
/// guests and to `register`; the console's `register NAME` gives a credential-less one to its
/// owner, and the named certificate logs in to the other on every node. An existing account is
/// left as it is (the store's create refuses it).
extension ClusterLink {
    /// At start and after each reload; `certificates` by account key, as the configuration has them.
    func reserveOperatorNames(_ names: some Sequence<String>, certificates: [String: String], now: Int64) {
        for name in names.sorted() {
            let write = AccountWrite.create(StoredAccount(name: name, passwordHash: nil, created: now),
                                            certificate: certificates[ChatValidation.nickKey(name)])
            requests.run(AccountWriteRequest(write, node: options.node, sharded: client.isCluster)) { [logger] outcome in
                if case .failed(let why) = outcome {
                    logger(.error, "operator name not reserved", ["account": name, "error": why])
                } else if outcome == .written {
                    logger(.info, "operator name reserved", ["account": name])
                }
            }
        }
    }
}
