import Digest
import Testing

@Suite("SHA-256")
struct SHA256Tests {
    /// The FIPS 180-2 test vectors, fed whole and in pieces of every size, give the known digests.
    @Test func knownVectors() {
        #expect(SHA256.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(of: Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        let long = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)
        for piece in 1...long.count {
            let hasher = SHA256()
            var offset = 0
            while offset < long.count {
                hasher.update(Array(long[offset..<min(offset + piece, long.count)]))
                offset += piece
            }
            #expect(hasher.finishHex() == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        }
    }

    /// The digest is fixed once taken: more input afterwards changes nothing.
    @Test func finishIsFinal() {
        let hasher = SHA256()
        hasher.update(Array("abc".utf8))
        let first = hasher.finish()
        hasher.update(Array("more".utf8))
        #expect(hasher.finish() == first)
        #expect(first.count == 32)
    }

    /// The whole-input form is the incremental one's digest.
    @Test func wholeInput() {
        let bytes = Array("abc".utf8)
        #expect(SHA256.digest(of: bytes) == { let hasher = SHA256(); hasher.update(bytes); return hasher.finish() }())
        #expect(SHA256.hex(SHA256.digest(of: [])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }
}
