import ChatProtocol

/// Where a download lands: the name from the network made safe
/// (``ChatValidation/safeFileName(_:)``: one component, never outside the folder), and never an
/// existing file: `name (1).ext`, `name (2).ext`, … (the `.part` file being written counts too).
public enum DownloadName {
    /// A free path in `folder` for a file the network calls `name`; `taken` says whether a path exists.
    public static func path(in folder: String, for name: String, taken: (String) -> Bool) -> String {
        let safe = ChatValidation.safeFileName(name)
        let base = folder.hasSuffix("/") ? folder : folder + "/"
        let (stem, suffix) = ChatValidation.splitExtension(safe)
        var candidate = safe
        var number = 1
        while taken(base + candidate) || taken(base + candidate + ".part") {
            candidate = "\(stem) (\(number))\(suffix)"
            number += 1
        }
        return base + candidate
    }
}
