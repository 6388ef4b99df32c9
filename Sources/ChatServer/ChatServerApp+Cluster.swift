import ChatServerCore
import QuicEngine

/// A node of several (`--cluster`): the core's room-log actions go to the ``ClusterLink``, and
/// what the link reports comes back to the core as input.
extension ChatServerApp {
    func performClusterAction(_ action: ServerAction) {
        guard let cluster else {
            // Only a core made with a shared log asks for these.
            preconditionFailure("a room-log action without --cluster: \(action)")
        }
        switch action {
        case .appendRoomEvent(let append): cluster.append(append)
        case .readRoomEvents(let read): cluster.read(read)
        case .followRoom(let room, let after): cluster.follow(room, after: after)
        case .unfollowRoom(let room): cluster.unfollow(room)
        case .readRoomMembers(let token, let room): cluster.readMembers(token, room: room)
        default: break
        }
    }

    func handleClusterReport(_ report: ClusterLink.ClusterReport) {
        let now = unixMilliseconds()
        switch report {
        case .appended(let token, let outcome):
            perform(state.roomEventAppended(token, outcome, now: now))
        case .read(let token, let events):
            perform(state.roomEventsRead(token, events, now: now))
        case .members(let token, let seq, let members):
            perform(state.roomMembersRead(token, seq: seq, members: members, now: now))
        case .delivered(let event):
            let deliveredBefore = metrics.deliveredTotal
            perform(state.roomEventDelivered(event, now: now))
            metrics.noteDeliveries(since: deliveredBefore, receivedAt: QuicTime.now())
        }
    }
}
