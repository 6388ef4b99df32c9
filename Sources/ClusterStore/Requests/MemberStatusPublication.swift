import ChatServerCore
import RedisClient

/// A local user's status: published to the other nodes on ``ClusterKeys/presenceChannel``, and
/// written into its records in its rooms' members (only where it still is a member: a status
/// never brings a member back). Written behind, replies unread.
public enum MemberStatusPublication {
    public static func commands(_ member: MemberRecord, rooms: [String], format: MemberRecordFormat, sharded: Bool) -> [StoreCommand] {
        let text = format.text(member)
        var commands = [StoreCommand.publish(text, on: ClusterKeys.presenceChannel, sharded: sharded)]
        for room in rooms {
            let members = RoomKeys(room: room).members
            commands.append(StoreCommand(RedisCommand("EVAL", updateRecordScript, "1", members, member.key, text), key: members))
        }
        return commands
    }

    /// KEYS[1] a room's members, ARGV[1] the member's key, ARGV[2] its record: replaced only
    /// while the member is there.
    public static let updateRecordScript = """
        if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then redis.call('HSET', KEYS[1], ARGV[1], ARGV[2]) end
        return 0
        """
}
