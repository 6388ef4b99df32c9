import ChatProtocol

/// Where a download lands: the name from the network made safe
/// (``ChatValidation/safeFileName(_:)``: one component, never outside the folder; and no
/// invisible or reordering character: ``visible(_:)``), and never an existing file:
/// `name (1).ext`, `name (2).ext`, … (the `.part` file being written counts too).
public enum DownloadName {
    /// A free path in `folder` for a file the network calls `name`; `taken` says whether a path exists.
    public static func path(in folder: String, for name: String, taken: (String) -> Bool) -> String {
        let safe = ChatValidation.safeFileName(visible(name))
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

    /// The name without what would make it read otherwise than it is (issue 24, defect 18): bidi
    /// overrides and isolates (U+202E shows `exe.txt` for `txt.exe`), other format characters
    /// (zero-width joiners, spaces and marks), line and paragraph separators, controls: each
    /// becomes `_`.
    public static func visible(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            switch scalar.properties.generalCategory {
            case .format, .lineSeparator, .paragraphSeparator, .control: "_"
            default: scalar
            }
        }))
    }
}
