import ChatProtocol

/// Accounts made and taken away on the operator console (docs/PROTOCOL.md sections 7-8, item 32;
/// issue 23, finding 4): `register NAME` creates an account that nobody may register over the
/// wire (a server operator's name), `unregister NAME` takes every credential of an account away
/// and closes its connections. The console's answers come back as ``ServerAction/consoleLine(_:)``,
/// once the account is stored.
extension ChatServerState {
    /// Creates the account `name` with a password hash (the glue hashed what the operator typed)
    /// and/or a certificate fingerprint; an account that has no credential (unregistered) gets the
    /// one given (the password when both are). An account with a credential is left alone.
    public func operatorRegister(_ name: String, passwordHash: String?, certificate: String?, now: Int64) -> [ServerAction] {
        guard ChatValidation.isValidAccountName(name) else { return [.consoleLine("not an account name: \(ChatValidation.excerpt(name))")] }
        guard passwordHash != nil || certificate != nil else { return [.consoleLine("register needs a password or a certificate")] }
        var out: [ServerAction] = []
        guard let lookup = consoleLookUp(name, into: &out) else { return out }
        guard let existing = lookup else {
            let account = StoredAccount(name: name, passwordHash: passwordHash, created: now)
            consoleWrite(.create(account, certificate: certificate), answer: "registered \(name)", into: &out)
            return out
        }
        guard let credentials = consoleCredentials(of: existing, into: &out) else { return out }
        guard credentials == 0 else { return out + [.consoleLine("account \(existing.name) exists (unregister it first)")] }
        let write: AccountWrite = passwordHash.map { .setPasswordHash(account: existing.name, hash: $0) }
            ?? .bind(account: existing.name, certificate: certificate ?? "")
        consoleWrite(write, answer: "\(existing.name) has a new \(passwordHash == nil ? "certificate" : "password")", into: &out)
        return out
    }

    /// Takes the password and every certificate from the account `name` and closes its
    /// connections (KICKED). The name stays an account without a credential: nobody can log in to
    /// it or register it again, and its rooms, grants and conversations wait for whoever the
    /// console gives it to next (`register NAME`).
    public func operatorUnregister(_ name: String, now: Int64) -> [ServerAction] {
        var out: [ServerAction] = []
        guard ChatValidation.isValidAccountName(name), let lookup = consoleLookUp(name, into: &out) else {
            return out.isEmpty ? [.consoleLine("no account \(ChatValidation.excerpt(name))")] : out
        }
        guard let existing = lookup else { return out + [.consoleLine("no account \(name)")] }
        consoleWrite(.retire(account: existing.name), answer: "unregistered \(existing.name): it has no password or certificate now",
                     into: &out)
        closeConnections(ofRetired: existing.name, now: now, into: &out)
        return out
    }

    /// On a node of several: reads the account `name` now if this node has not, so that the
    /// console command that names it finds it (the password is asked for meanwhile).
    public func readAccountForConsole(_ name: String) -> [ServerAction] {
        let cache = accounts
        guard ChatValidation.isValidAccountName(name), !cache.isKnown(name) else { return [] }
        nextSharedToken += 1
        pendingAccounts[nextSharedToken] = .background
        return [.loadAccounts(nextSharedToken, names: [name])]
    }

    /// Closes this node's connections logged in to an account that lost its credentials.
    func closeConnections(ofRetired account: String, now: Int64, into out: inout [ServerAction]) {
        let key = ChatValidation.nickKey(account)
        for session in clients.values.sorted(by: { $0.id < $1.id }) where session.accountKey == key {
            close(session, with: .kicked, reason: "account removed by an operator", now: now, into: &out)
        }
    }

    /// The account (nil: none), or nil itself after answering the console (unreadable; on a node
    /// of several, not read yet: read now, for the next try).
    private func consoleLookUp(_ name: String, into out: inout [ServerAction]) -> StoredAccount?? {
        do {
            return .some(try accounts.account(named: name))
        } catch {
            out += loadMissedAccounts()
            out.append(.consoleLine("reading \(name) from the store; try again"))
            return nil
        }
    }

    /// How many credentials (password, certificates) an account has; nil after answering the console.
    private func consoleCredentials(of account: StoredAccount, into out: inout [ServerAction]) -> Int? {
        do {
            return (account.passwordHash == nil ? 0 : 1) + (try accounts.certificates(ofAccount: account.name)).count
        } catch {
            out.append(.consoleLine("accounts cannot be read: \(error)"))
            return nil
        }
    }

    /// Stores a console's change through the store; the console is answered when it is written.
    private func consoleWrite(_ write: AccountWrite, answer: String, into out: inout [ServerAction]) {
        nextSharedToken += 1
        pendingAccounts[nextSharedToken] = .console(answer: answer)
        out.append(.writeAccount(nextSharedToken, write))
    }
}
