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
    case directReceiptLookedUp(UInt64, ClaimOutcome<Int64?>)
    /// For ``ChatServerState/accountsLoaded(_:_:now:)``.
    case accountsLoaded(UInt64, [String: LoadedAccount?]?)
    /// For ``ChatServerState/accountWritten(_:_:_:now:)``.
    case accountWritten(UInt64, AccountWriteOutcome, AccountWrite)
    /// For ``ChatServerState/loginAttemptReserved(_:_:now:)``.
    case loginAttemptReserved(LoginAttempt, LoginAttemptReservation)
}
