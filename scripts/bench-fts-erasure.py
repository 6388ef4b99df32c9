#!/usr/bin/env python3
"""What one erasure of redacted text costs the --db file (docs/PROTOCOL.md, "Erased, not hidden"):
an FTS5 `optimize` of an index of N messages (10 words each, as the server's `message_words`
table: `ascii` tokenizer, secure_delete on, WAL) after one row is deleted, then
`wal_checkpoint(TRUNCATE)`. Usage: scripts/bench-fts-erasure.py [N] (default 100000)."""
import os, random, sqlite3, sys, tempfile, time

count = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
random.seed(1)
words = [f"w{i}" for i in range(20_000)]
path = os.path.join(tempfile.mkdtemp(), "erasure.db")
db = sqlite3.connect(path)
db.execute("PRAGMA journal_mode=WAL")
db.execute("PRAGMA secure_delete=ON")
db.execute("CREATE VIRTUAL TABLE message_words USING fts5(scope, words, tokenize = 'ascii')")
db.executemany("INSERT INTO message_words (scope, words) VALUES (?, ?)",
               (("r646576", " ".join(random.choice(words) for _ in range(10))) for _ in range(count)))
db.commit()
db.execute("INSERT INTO message_words (message_words) VALUES ('optimize')")
db.commit()
db.execute("DELETE FROM message_words WHERE rowid = ?", (count // 2,))
db.commit()
start = time.time()
db.execute("INSERT INTO message_words (message_words) VALUES ('optimize')")
db.commit()
optimize = time.time() - start
start = time.time()
db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
checkpoint = time.time() - start
print(f"{count} messages: optimize {optimize:.3f} s, checkpoint {checkpoint:.3f} s, file {os.path.getsize(path) / 1e6:.1f} MB")
