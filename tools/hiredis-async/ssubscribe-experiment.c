/* Experiment for docs/CLUSTER.md: does hiredis 0.14.1's async layer handle SSUBSCRIBE / smessage (RESP2)?
 * Build: gcc -o exp ssubscribe-experiment.c -lhiredis. Run against a redis-server 7 on PORT:
 *   ./exp PORT subscribe | ssubscribe | ssubscribe-one   (the last aborts in async.c:478) */
#include <hiredis/hiredis.h>
#include <hiredis/async.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static void show(redisAsyncContext *c, void *r, void *priv) {
    redisReply *reply = r;
    const char *tag = priv;
    if (!reply) { printf("%s: NULL reply\n", tag); return; }
    if (reply->type == REDIS_REPLY_ARRAY) {
        printf("%s: array of %zu:", tag, reply->elements);
        for (size_t i = 0; i < reply->elements; i++) {
            redisReply *e = reply->element[i];
            if (e->type == REDIS_REPLY_STRING) printf(" \"%s\"", e->str); else if (e->type == REDIS_REPLY_INTEGER) printf(" %lld", e->integer);
        }
        printf("\n");
    } else if (reply->type == REDIS_REPLY_STRING || reply->type == REDIS_REPLY_STATUS || reply->type == REDIS_REPLY_ERROR) printf("%s: type %d \"%s\"\n", tag, reply->type, reply->str);
    else printf("%s: type %d int %lld\n", tag, reply->type, reply->integer);
    fflush(stdout);
}
static void pump(redisAsyncContext *ac, int rounds) {
    for (int i = 0; i < rounds; i++) {
        struct pollfd p = { ac->c.fd, POLLIN | POLLOUT, 0 };
        if (poll(&p, 1, 100) <= 0) continue;
        if (p.revents & POLLOUT) redisAsyncHandleWrite(ac);
        if (p.revents & POLLIN) redisAsyncHandleRead(ac);
    }
}
int main(int argc, char **argv) {
    int port = atoi(argv[1]);
    const char *mode = argv[2];
    redisAsyncContext *sub = redisAsyncConnect("127.0.0.1", port);
    redisContext *pub = redisConnect("127.0.0.1", port);
    if (strcmp(mode, "subscribe") == 0) {
        redisAsyncCommand(sub, show, "sub", "SUBSCRIBE a b");
        pump(sub, 5);
        freeReplyObject(redisCommand(pub, "PUBLISH a hello"));
        pump(sub, 5);
        redisAsyncCommand(sub, show, "ping-while-subscribed", "PING");
        pump(sub, 5);
    } else if (strcmp(mode, "ssubscribe-one") == 0) {
        redisAsyncCommand(sub, show, "ssub", "SSUBSCRIBE a");
        pump(sub, 5);
        printf("spublish\n"); fflush(stdout);
        freeReplyObject(redisCommand(pub, "SPUBLISH a hello"));
        pump(sub, 5);
    } else {
        redisAsyncCommand(sub, show, "ssub", "SSUBSCRIBE a b");
        redisAsyncCommand(sub, show, "get-after", "GET x");
        pump(sub, 5);
        printf("spublish\n"); fflush(stdout);
        freeReplyObject(redisCommand(pub, "SPUBLISH a hello"));
        pump(sub, 5);
        printf("after: err=%d \"%s\"\n", sub->err, sub->errstr);
    }
    printf("end\n");
    return 0;
}
