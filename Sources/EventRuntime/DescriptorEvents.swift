internal import CLinux

/// What a watched descriptor is ready for; the values are epoll's (and poll's) bits.
public struct DescriptorEvents: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let readable = DescriptorEvents(rawValue: EPOLLIN.rawValue)
    public static let writable = DescriptorEvents(rawValue: EPOLLOUT.rawValue)
    public static let error = DescriptorEvents(rawValue: EPOLLERR.rawValue)
    public static let hangUp = DescriptorEvents(rawValue: EPOLLHUP.rawValue)
}
