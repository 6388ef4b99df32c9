import ChatServerCore

/// What the local store answers the core: the same inputs the Redis link reports, one case per
/// `ChatServerState` entry point.
public enum LocalStoreAnswer: Sendable, Equatable {
    /// For ``ChatServerState/roomEventAppended(_:_:now:)``.
    case appended(UInt64, RoomAppendOutcome)
    /// For ``ChatServerState/roomEventsRead(_:_:now:)``.
    case read(UInt64, [SharedRoomEvent]?)
    /// For ``ChatServerState/roomEventDelivered(_:now:)``.
    case delivered(SharedRoomEvent)
    /// For ``ChatServerState/roomStateRead(_:seq:members:settings:now:)``: this server's members
    /// only (there is no other node), as of `seq`.
    case roomState(UInt64, seq: Int64, [MemberRecord]?, RoomSettings?)
    /// For ``ChatServerState/directReceiptLookedUp(_:_:now:)``.
    case directReceiptLookedUp(UInt64, ClaimOutcome<MessageReceipt?>)
    /// For ``ChatServerState/accountsLoaded(_:_:now:)``.
    case accountsLoaded(UInt64, [String: LoadedAccount?]?)
    /// For ``ChatServerState/accountWritten(_:_:_:now:)``.
    case accountWritten(UInt64, AccountWriteOutcome, AccountWrite)
    /// For ``ChatServerState/loginAttemptReserved(_:_:now:)``.
    case loginAttemptReserved(LoginAttempt, LoginAttemptReservation)
    /// For ``ChatServerState/helloClaimed(_:_:now:)``.
    case helloClaimed(UInt64, ClaimOutcome<HelloClaim>)
    /// For ``ChatServerState/nickClaimed(_:_:now:)``.
    case nickClaimed(UInt64, ClaimOutcome<String?>)
    /// For ``ChatServerState/nickLookedUp(_:_:now:)``.
    case nickLookedUp(UInt64, ClaimOutcome<NickHolder?>)
    /// For ``ChatServerState/deviceLookedUp(_:_:now:)``.
    case deviceLookedUp(UInt64, ClaimOutcome<DeviceHolder?>)
    /// For ``ChatServerState/filesLoaded(_:_:now:)``.
    case filesLoaded(UInt64, LoadedFiles?)
    /// For ``ChatServerState/fileRecordStored(_:_:now:)``.
    case fileRecordStored(UInt64, FileRecordOutcome)
    /// For ``ChatServerState/contentEvicted(_:)``.
    case contentEvicted([String])
    /// Interrupted uploads expired in the store: their bytes go (the glue's, not the core's).
    case partialsExpired([String])
}

extension ChatServerState {
    /// Hands a local store's answer to the core's entry point for it.
    public func storeAnswered(_ answer: LocalStoreAnswer, now: Int64) -> [ServerAction] {
        switch answer {
        case .appended(let token, let outcome): roomEventAppended(token, outcome, now: now)
        case .read(let token, let events): roomEventsRead(token, events, now: now)
        case .delivered(let event): roomEventDelivered(event, now: now)
        case .roomState(let token, let seq, let members, let settings):
            roomStateRead(token, seq: seq, members: members, settings: settings, now: now)
        case .directReceiptLookedUp(let token, let outcome): directReceiptLookedUp(token, outcome, now: now)
        case .accountsLoaded(let token, let accounts): accountsLoaded(token, accounts, now: now)
        case .accountWritten(let token, let outcome, let write): accountWritten(token, outcome, write, now: now)
        case .loginAttemptReserved(let attempt, let reservation): loginAttemptReserved(attempt, reservation, now: now)
        case .helloClaimed(let token, let outcome): helloClaimed(token, outcome, now: now)
        case .nickClaimed(let token, let outcome): nickClaimed(token, outcome, now: now)
        case .nickLookedUp(let token, let outcome): nickLookedUp(token, outcome, now: now)
        case .deviceLookedUp(let token, let outcome): deviceLookedUp(token, outcome, now: now)
        case .filesLoaded(let token, let loaded): filesLoaded(token, loaded, now: now)
        case .fileRecordStored(let token, let outcome): fileRecordStored(token, outcome, now: now)
        case .contentEvicted(let unused): contentEvicted(unused)
        case .partialsExpired(let keys): keys.map { .discardFileBytes(.partial($0)) }
        }
    }
}
