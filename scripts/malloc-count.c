// SPDX-License-Identifier: GPL-2.0-or-later
// Counts a process's heap allocations for `sportsensor-dev bench-gateway` (Docs/PERFORMANCE.md):
// preloaded into the daemon under test (LD_PRELOAD), it forwards malloc, calloc, realloc and the
// aligned allocators to glibc's own entry points and counts each call in an 8-byte file named by
// MALLOC_COUNT_FILE, mapped shared, so the benchmark reads the count at any time without asking
// the daemon. Never built into the project's programs.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

// Counts before the file is mapped (the loader's own allocations) land here.
static _Atomic uint64_t early;
static _Atomic uint64_t *counter = &early;

__attribute__((constructor)) static void malloc_count_map(void) {
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (path == NULL) return;
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    if (ftruncate(fd, sizeof(uint64_t)) == 0) {
        void *page = mmap(NULL, sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (page != MAP_FAILED) {
            _Atomic uint64_t *mapped = page;
            atomic_store(mapped, atomic_load(&early));
            counter = mapped;
        }
    }
    close(fd);
}

static inline void count(void) { atomic_fetch_add_explicit(counter, 1, memory_order_relaxed); }

void *malloc(size_t size) {
    count();
    return __libc_malloc(size);
}

void *calloc(size_t number, size_t size) {
    count();
    return __libc_calloc(number, size);
}

void *realloc(void *pointer, size_t size) {
    count();
    return __libc_realloc(pointer, size);
}

void *memalign(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count();
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    count();
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
