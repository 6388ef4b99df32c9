import ChatProtocol

/// Reading an account for a request: one place that turns a store failure into `unavailable`.
extension ChatServerState {
    func lookUpAccount(_ name: String, for request: ChatMessage, from session: ClientSession,
                       into out: inout [ServerAction]) -> AccountLookup {
        guard ChatValidation.isValidAccountName(name) else { return .none }
        do {
            return try accounts.account(named: name).map(AccountLookup.found) ?? .none
        } catch {
            out.append(.log(.error, "account read failed", ["error": "\(error)"]))
            sendError(.unavailable, "accounts cannot be read right now; try again", id: request.id, to: session, into: &out)
            return .unreadable
        }
    }
}
