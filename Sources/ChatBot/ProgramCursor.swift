/// Where a bot is in its commands: one frame per `repeat` being run, innermost last.
struct ProgramCursor {
    private struct Frame {
        var commands: [ScriptCommand]
        var index = 0
        /// Passes still to run after the current one; nil repeats forever.
        var remaining: Int?
    }

    private var frames: [Frame]

    init(_ commands: [ScriptCommand]) {
        frames = [Frame(commands: commands, remaining: 0)]
    }

    /// The next command to run; `repeat` blocks are entered, never returned. Nil at the end.
    mutating func next() -> ScriptCommand? {
        while let top = frames.last {
            if top.index < top.commands.count {
                let command = top.commands[top.index]
                frames[frames.count - 1].index += 1
                if case .repeatBlock(let times, let body) = command.action {
                    // An empty body would loop without returning; the parser refuses it anyway.
                    if !body.isEmpty { frames.append(Frame(commands: body, remaining: times.map { $0 - 1 })) }
                    continue
                }
                return command
            }
            switch top.remaining {
            case nil:
                frames[frames.count - 1].index = 0
            case let passes? where passes > 0:
                frames[frames.count - 1].remaining = passes - 1
                frames[frames.count - 1].index = 0
            default:
                frames.removeLast()
            }
        }
        return nil
    }
}
