import ChatServerCore
import ClusterStore
import EventRuntime
import RedisClient

/// Accounts in Redis: `{account:KEY}` is a hash (`name`, `hash` when it has a password,
/// `created`), `{account:KEY}:certs` the set of its certificates' fingerprints (one slot per
/// account). The requests are ClusterStore's (``AccountsLoad``, ``AccountWriteRequest``,
/// ``LoginAttemptReserve``); a change is announced on `{accounts}:changes` (``AccountChanges``).
extension ClusterLink {
    func reserveLoginAttempt(_ attempt: LoginAttempt, limit: Int, windowMilliseconds: Int64) {
        requests.run(LoginAttemptReserve(attempt, limit: limit, windowMilliseconds: windowMilliseconds, node: options.node)) { [report] in
            report(.loginAttemptReserved(attempt, $0))
        }
    }

    func releaseLoginAttempt(_ attempt: LoginAttempt) {
        if let command = LoginAttemptReserve.release(attempt, node: options.node) { requests.send(command) }
    }

    var accountChangesSubscription: RedisSubscription {
        RedisSubscription(client.isCluster ? .shard : .channel, ClusterKeys.accountChangesChannel)
    }

    func loadAccounts(_ token: UInt64, names: [String]) {
        requests.run(AccountsLoad(names: names, sharded: client.isCluster, startedAt: .now())) { [report] in
            report(.accountsLoaded(token, $0))
        }
    }

    func writeAccount(_ token: UInt64, _ write: AccountWrite) {
        requests.run(AccountWriteRequest(write, node: options.node, sharded: client.isCluster)) { [report] in
            report(.accountWritten(token, $0, write))
        }
    }

    func receivedAccountChange(_ payload: [UInt8]) {
        if let account = AccountChanges.changed(payload, thisNode: options.node) { report(.accountChanged(account)) }
    }
}
