import EventRuntime

/// The two connections a client keeps to one server: commands, and (once something is
/// subscribed there) pub/sub.
final class RedisNode {
    let address: RedisServerAddress
    let commands: RedisCommandSession
    let commandLink: RedisLink
    let subscriptions: RedisSubscriberSession
    let subscriberLink: RedisLink

    init(address: RedisServerAddress, loop: EventLoop, settings: RedisConnectionSettings, handshake: [RedisCommand],
         random: RandomBytes, readBuffer: RedisReadBuffer) {
        self.address = address
        commands = RedisCommandSession(settings: settings, handshake: handshake)
        commandLink = RedisLink(address: address, session: commands, loop: loop, settings: settings, random: random,
                                readBuffer: readBuffer)
        commands.link = commandLink
        subscriptions = RedisSubscriberSession(settings: settings)
        subscriberLink = RedisLink(address: address, session: subscriptions, loop: loop, settings: settings, random: random,
                                   readBuffer: readBuffer)
        subscriptions.link = subscriberLink
    }

    func stop(_ failure: RedisFailure) {
        commandLink.stop(failure)
        subscriberLink.stop(failure)
    }
}
