/// Where a connection is in its life, as the core sees it.
enum ClientPhase {
    /// Connected; no valid `join` yet, so no nick, peer or rooms.
    case awaitingHello
    /// Said hello: registered by peer and nick.
    case active
}
