internal import CAvahi
import Glibc

/// TXT strings to and from Avahi's `AvahiStringList`.
enum AvahiTXTStrings {
    /// A new list the caller frees with `avahi_string_list_free`; nil for no strings.
    static func make(_ strings: [String]) -> UnsafeMutablePointer<AvahiStringList>? {
        var copies = strings.map { strdup($0) }
        defer { for copy in copies { free(copy) } }
        return copies.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                avahi_string_list_new_from_array($0, Int32(buffer.count))
            }
        }
    }

    /// The strings of a list the resolver reported, as UTF-8 (invalid bytes replaced).
    static func strings(_ list: UnsafeMutablePointer<AvahiStringList>?) -> [String] {
        var strings: [String] = []
        var cursor = list
        while let item = cursor {
            if let text = avahi_string_list_get_text(item) {
                strings.append(String(decoding: UnsafeBufferPointer(start: text, count: avahi_string_list_get_size(item)), as: UTF8.self))
            }
            cursor = avahi_string_list_get_next(item)
        }
        return strings.reversed()
    }
}
