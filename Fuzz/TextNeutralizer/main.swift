/// libFuzzer target: hostile text from the network into ``TextNeutralizer``.
///
/// Properties checked on the output, from the neutraliser's contract and PROTOCOL.md section 6
/// ("nothing is ever interpreted by the terminal"):
/// - no C0 control (LF survives only as a message body's line break), no DEL, no C1 control,
///   hence no ESC and no CSI, OSC or DCS sequence;
/// - no format character (bidi embeddings, overrides, isolates, LRM/RLM/ALM, zero-width space,
///   BOM, ...) except ZWJ and ZWNJ, and tag characters only inside an emoji tag sequence; no line
///   or paragraph separator, no Hangul filler, no other default-ignorable scalar but marks;
/// - every cluster but a line break has a width, so none can fuse with a neighbouring cell;
/// - a cluster holds at most `maximumScalarsPerCharacter` scalars, plus one for its carrier;
/// - the output is a fixed point: neutralising it again (without the cut) changes nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextNeutralizer(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let fuzzed = FuzzedText(UnsafeRawBufferPointer(start: data, count: size))
    let neutralizer = fuzzed.neutralizer
    let output = neutralizer.neutralize(fuzzed.text)
    for character in output {
        checkSafe(character, lineFeedIsBreak: neutralizer.lineFeed == .lineBreak)
        require(character.unicodeScalars.count <= neutralizer.maximumScalarsPerCharacter + 1,
                "a cluster of \(character.unicodeScalars.count) scalars with a limit of \(neutralizer.maximumScalarsPerCharacter)")
    }
    // The cut is left out of the second pass: a carrier or placeholder may add a scalar to a cut
    // cluster, which a second cut would take off again.
    let uncut = TextNeutralizer(lineFeed: neutralizer.lineFeed, tabWidth: neutralizer.tabWidth, maximumScalarsPerCharacter: .max)
    let again = uncut.neutralize(output)
    require(again.utf8.elementsEqual(output.utf8), "neutralising is idempotent: \(output.debugDescription) became \(again.debugDescription)")
    return 0
}

private func checkSafe(_ character: Character, lineFeedIsBreak: Bool) {
    if character == "\n" {
        require(lineFeedIsBreak, "LF survives only as a line break")
        return
    }
    let isEmojiTagSequence = character.unicodeScalars.first?.value == 0x1F3F4
    for scalar in character.unicodeScalars {
        let name = "U+" + String(scalar.value, radix: 16, uppercase: true)
        switch scalar.properties.generalCategory {
        case .control:
            fatalError("property violated: control character \(name) in the output")
        case .format:
            let isJoiner = scalar.value == 0x200C || scalar.value == 0x200D
            let isFlagTag = isEmojiTagSequence && (0xE0020...0xE007F).contains(scalar.value)
            require(isJoiner || isFlagTag, "format character \(name) in the output")
        case .lineSeparator, .paragraphSeparator:
            fatalError("property violated: line or paragraph separator \(name) in the output")
        default:
            require(![0x115F, 0x1160, 0x3164, 0xFFA0].contains(scalar.value), "Hangul filler \(name) in the output")
            // Invisible by definition: only marks, which sit on a visible base, may be.
            require(!scalar.properties.isDefaultIgnorableCodePoint || scalar.properties.generalCategory == .nonspacingMark,
                    "default-ignorable \(name) in the output")
        }
    }
    require(DisplayWidth.columns(of: character) > 0,
            "zero-width cluster \(character.unicodeScalars.map { String($0.value, radix: 16) }) in the output")
}
