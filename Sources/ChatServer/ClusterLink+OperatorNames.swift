import ChatProtocol
import ChatServerCore
import ClusterStore

/// Server operators' names on a node of several (issue 23, finding 4, second look). A node
/// reserves an operator's name only while it names it itself (`--operator`), so a node that does
/// not (another configuration, or one not yet reloaded while the nodes are reloaded one after
/// another) gave the name to a guest, who registered it there and was a server operator through
/// the nodes that name it. Each node therefore makes every operator name it is given that is no
/// account yet an account without a credential (what the console's `unregister` leaves): every
/// node then refuses it to guests and to `register`, and the console's `register NAME` gives it
/// to its owner. An existing account is left as it is (the store's create refuses it).
extension ClusterLink {
    /// At start and after each reload. Names bound to a certificate (`NAME=sha256:...`) are left
    /// to their certificate: the node that names them lets that certificate make the account.
    func reserveOperatorNames(_ names: some Sequence<String>, certificates: [String: String], now: Int64) {
        for name in names.sorted() where certificates[ChatValidation.nickKey(name)] == nil {
            let write = AccountWrite.create(StoredAccount(name: name, passwordHash: nil, created: now), certificate: nil)
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
