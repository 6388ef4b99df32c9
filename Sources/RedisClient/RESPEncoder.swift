/// Commands to RESP: an array of bulk strings, `*N\r\n` then `$LEN\r\nBYTES\r\n` per argument,
/// written straight into the outbound buffer. (It was hiredis's `redisFormatCommandArgv`, whose
/// `sprintf` per length, argument copies and allocations cost 16,000 instructions per room-event
/// script, about a third of an append's client-side cost: callgrind, docs/CLUSTER.md.)
enum RESPEncoder {
    static func append(_ command: RedisCommand, to output: inout [UInt8]) {
        // No reserveCapacity: called once per command on a growing buffer, it would reallocate
        // to the exact size each time instead of growing geometrically.
        output.append(UInt8(ascii: "*"))
        appendDecimal(command.arguments.count, to: &output)
        output.append(13)
        output.append(10)
        for argument in command.arguments {
            output.append(UInt8(ascii: "$"))
            appendDecimal(argument.count, to: &output)
            output.append(13)
            output.append(10)
            output.append(contentsOf: argument)
            output.append(13)
            output.append(10)
        }
    }

    /// `value` (never negative: a count) in decimal ASCII, most significant digit first.
    private static func appendDecimal(_ value: Int, to output: inout [UInt8]) {
        var divisor = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            output.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
