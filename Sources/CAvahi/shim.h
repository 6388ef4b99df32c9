#ifndef QCHAT_CAVAHI_SHIM_H
#define QCHAT_CAVAHI_SHIM_H

// The whole C surface of the system's mDNS responder (avahi-daemon over D-Bus) that
// ServiceDiscovery sees: the client, publishing, browsing and resolving, and the poll API it
// implements over the event loop.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/watch.h>
#include <sys/time.h>

// Anonymous enum constants import as Int; these carry the types the functions take.
static inline AvahiIfIndex cavahi_interface_unspecified(void) { return AVAHI_IF_UNSPEC; }
static inline AvahiProtocol cavahi_protocol_unspecified(void) { return AVAHI_PROTO_UNSPEC; }
static inline AvahiProtocol cavahi_protocol_inet(void) { return AVAHI_PROTO_INET; }
static inline AvahiProtocol cavahi_protocol_inet6(void) { return AVAHI_PROTO_INET6; }

#endif
