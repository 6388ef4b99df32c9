/// Which way a packet travels through the proxy.
enum TrafficDirection: Int {
    /// Client → server.
    case up = 0
    /// Server → client.
    case down = 1
}
