// SPDX-License-Identifier: GPL-2.0-or-later
//
// The one C header Swift sees of BlueZ's libbluetooth and the kernel's Bluetooth socket API.
// Macros and inline helpers that Swift cannot import are wrapped as `static inline` functions
// prefixed `cbz_`. Only the BLETransport target imports this module.
#ifndef SPORTSENSORD_CBLUEZ_SHIM_H
#define SPORTSENSORD_CBLUEZ_SHIM_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

// ---- sizes, as the C compiler sees them (tests compare them with Swift's MemoryLayout) ----
static inline size_t cbz_sizeof_sockaddr_l2(void) { return sizeof(struct sockaddr_l2); }
static inline size_t cbz_sizeof_sockaddr_hci(void) { return sizeof(struct sockaddr_hci); }
static inline size_t cbz_sizeof_bdaddr_t(void) { return sizeof(bdaddr_t); }
static inline size_t cbz_sizeof_hci_filter(void) { return sizeof(struct hci_filter); }
static inline size_t cbz_sizeof_hci_dev_info(void) { return sizeof(struct hci_dev_info); }
static inline size_t cbz_sizeof_bt_security(void) { return sizeof(struct bt_security); }
static inline size_t cbz_offsetof_sockaddr_l2_cid(void) { return offsetof(struct sockaddr_l2, l2_cid); }
static inline size_t cbz_offsetof_sockaddr_l2_bdaddr_type(void) {
    return offsetof(struct sockaddr_l2, l2_bdaddr_type);
}
static inline size_t cbz_offsetof_sockaddr_l2_bdaddr(void) { return offsetof(struct sockaddr_l2, l2_bdaddr); }
static inline size_t cbz_offsetof_bt_security_key_size(void) { return offsetof(struct bt_security, key_size); }

// ---- constants that are macros (some are enums Swift would import, but keep one spelling) ----
static inline int cbz_af_bluetooth(void) { return AF_BLUETOOTH; }
static inline int cbz_btproto_l2cap(void) { return BTPROTO_L2CAP; }
static inline int cbz_btproto_hci(void) { return BTPROTO_HCI; }
static inline int cbz_sol_bluetooth(void) { return SOL_BLUETOOTH; }
static inline int cbz_sol_hci(void) { return SOL_HCI; }
static inline int cbz_bt_security(void) { return BT_SECURITY; }
static inline int cbz_bt_security_low(void) { return BT_SECURITY_LOW; }
static inline int cbz_hci_filter_opt(void) { return HCI_FILTER; }
static inline int cbz_bdaddr_le_public(void) { return BDADDR_LE_PUBLIC; }
static inline int cbz_bdaddr_le_random(void) { return BDADDR_LE_RANDOM; }
static inline uint16_t cbz_att_cid(void) { return 4; }
static inline int cbz_bdaddr_bredr(void) { return BDADDR_BREDR; }
static inline int cbz_hci_channel_raw(void) { return HCI_CHANNEL_RAW; }
// The kernel's management interface: a raw HCI socket bound to no device on this channel.
static inline int cbz_hci_channel_control(void) { return HCI_CHANNEL_CONTROL; }
static inline uint16_t cbz_hci_dev_none(void) { return HCI_DEV_NONE; }
// libbluetooth has no mgmt header: the packet header (code, index, length, all little-endian)
// is defined here so a test can check the Swift codec's size against the C layout.
struct cbz_mgmt_hdr {
    uint16_t opcode;
    uint16_t index;
    uint16_t len;
} __attribute__((packed));
static inline size_t cbz_sizeof_mgmt_hdr(void) { return sizeof(struct cbz_mgmt_hdr); }
static inline int cbz_hci_command_pkt(void) { return HCI_COMMAND_PKT; }
static inline int cbz_hci_event_pkt(void) { return HCI_EVENT_PKT; }

// ---- hci_filter helpers (macros/inline functions in hci_lib.h) ----
static inline void cbz_hci_filter_clear(struct hci_filter *f) { hci_filter_clear(f); }
static inline void cbz_hci_filter_set_ptype(int t, struct hci_filter *f) { hci_filter_set_ptype(t, f); }
static inline void cbz_hci_filter_set_event(int e, struct hci_filter *f) { hci_filter_set_event(e, f); }
static inline void cbz_hci_filter_all_events(struct hci_filter *f) { hci_filter_all_events(f); }

// ---- ioctls (macros built from _IOR/_IOW) ----
static inline unsigned long cbz_hcigetdevinfo(void) { return HCIGETDEVINFO; }
static inline unsigned long cbz_hcigetdevlist(void) { return HCIGETDEVLIST; }
static inline int cbz_hci_test_bit(int nr, const void *addr) { return hci_test_bit(nr, addr); }
static inline int cbz_hci_up_flag(void) { return HCI_UP; }

// ---- wake-up descriptor for I/O threads (sys/eventfd.h is not in Swift's Glibc module) ----
static inline int cbz_eventfd_nonblocking(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

// ---- HCIGETDEVLIST: struct hci_dev_list_req ends in a flexible array Swift cannot index ----
static inline int cbz_hci_max_dev(void) { return HCI_MAX_DEV; }
static inline size_t cbz_sizeof_hci_dev_list_req(int count) {
    return sizeof(struct hci_dev_list_req) + (size_t)count * sizeof(struct hci_dev_req);
}
static inline void cbz_hci_dev_list_req_set_count(void *list, uint16_t count) {
    ((struct hci_dev_list_req *)list)->dev_num = count;
}
static inline uint16_t cbz_hci_dev_list_req_count(const void *list) {
    return ((const struct hci_dev_list_req *)list)->dev_num;
}
static inline uint16_t cbz_hci_dev_list_req_id(const void *list, int index) {
    return ((const struct hci_dev_list_req *)list)->dev_req[index].dev_id;
}

// ---- byte order of addresses: bdaddr_t is little-endian (last octet first) ----
static inline void cbz_bdaddr_from_bytes(bdaddr_t *out, const uint8_t msb_first[6]) {
    for (int i = 0; i < 6; i++) out->b[i] = msb_first[5 - i];
}

static inline void cbz_bdaddr_to_bytes(const bdaddr_t *address, uint8_t msb_first[6]) {
    for (int i = 0; i < 6; i++) msb_first[i] = address->b[5 - i];
}

// ---- L2CAP addresses: htobs is a macro; fields are little-endian on the wire to the kernel ----
static inline uint16_t cbz_htobs(uint16_t value) { return htobs(value); }
static inline uint16_t cbz_btohs(uint16_t value) { return btohs(value); }

/// Fills a zeroed `sockaddr_l2` for a fixed channel: family AF_BLUETOOTH, PSM 0, the address
/// (most significant octet first, or all zeros = BDADDR_ANY when NULL), the channel id in
/// Bluetooth byte order, and the address type (BDADDR_LE_PUBLIC or BDADDR_LE_RANDOM).
static inline void cbz_sockaddr_l2_fixed_channel(struct sockaddr_l2 *out, const uint8_t *msb_first, uint16_t cid,
                                                  uint8_t bdaddr_type) {
    memset(out, 0, sizeof(*out));
    out->l2_family = AF_BLUETOOTH;
    if (msb_first) cbz_bdaddr_from_bytes(&out->l2_bdaddr, msb_first);
    out->l2_cid = htobs(cid);
    out->l2_bdaddr_type = bdaddr_type;
}

// ---- accept4 is a GNU extension Swift's Glibc module does not expose; call it by number ----
static inline int cbz_accept4_cloexec_nonblock(int fd, struct sockaddr_l2 *peer, socklen_t *length) {
    return (int)syscall(SYS_accept4, fd, (struct sockaddr *)peer, length, SOCK_CLOEXEC | SOCK_NONBLOCK);
}

// ---- epoll for the socket reactor (struct epoll_event is packed on x86-64, which Swift cannot
// import faithfully: ready events are copied into an unpacked record) ----
struct cbz_epoll_ready {
    uint64_t token;
    uint32_t events;
    uint32_t reserved;
};
static inline int cbz_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
// Level-triggered readability; EPOLLHUP and EPOLLERR are always reported.
static inline int cbz_epoll_add_readable(int epfd, int fd, uint64_t token) {
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = token};
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &event);
}
static inline int cbz_epoll_remove(int epfd, int fd) {
    struct epoll_event event = {0};
    return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, &event);
}
enum { cbz_epoll_wait_capacity = 64 };
// Waits like epoll_wait(2) for at most min(capacity, 64) events; errno is left as the call set it.
static inline int cbz_epoll_wait(int epfd, struct cbz_epoll_ready *ready, int capacity, int timeout) {
    struct epoll_event events[cbz_epoll_wait_capacity];
    if (capacity > cbz_epoll_wait_capacity) capacity = cbz_epoll_wait_capacity;
    int count = epoll_wait(epfd, events, capacity, timeout);
    for (int index = 0; index < count; index++) {
        ready[index].token = events[index].data.u64;
        ready[index].events = events[index].events;
        ready[index].reserved = 0;
    }
    return count;
}

// ---- recvmmsg for the socket reactor: several messages of one socket in one call. Called by
// number with the kernel's struct mmsghdr spelled out, as Swift's Glibc module hides the GNU
// declarations (see accept4 above) ----
struct cbz_mmsghdr {
    struct msghdr header;
    unsigned int length;
};
enum { cbz_recv_batch_capacity = 16 };
// Reads up to min(count, 16) messages without waiting, message i into the `slot` bytes at
// buffer + i * slot, its length into lengths[i] (MSG_TRUNC: the real length, also when longer
// than the slot). Returns the number of messages, or -1 with errno as recvmmsg(2) set it.
static inline int cbz_recv_batch(int fd, void *buffer, size_t slot, int count, size_t *lengths) {
    struct cbz_mmsghdr messages[cbz_recv_batch_capacity];
    struct iovec vectors[cbz_recv_batch_capacity];
    if (count > cbz_recv_batch_capacity) count = cbz_recv_batch_capacity;
    memset(messages, 0, sizeof messages);
    for (int index = 0; index < count; index++) {
        vectors[index].iov_base = (unsigned char *)buffer + (size_t)index * slot;
        vectors[index].iov_len = slot;
        messages[index].header.msg_iov = &vectors[index];
        messages[index].header.msg_iovlen = 1;
    }
    int received = (int)syscall(SYS_recvmmsg, fd, messages, (unsigned int)count, MSG_DONTWAIT | MSG_TRUNC, NULL);
    for (int index = 0; index < received; index++) lengths[index] = messages[index].length;
    return received;
}

#endif
