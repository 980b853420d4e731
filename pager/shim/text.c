/* SPDX-License-Identifier: MIT */
/*
 * text.c - the program's executable and its libraries, at start and
 * after each dlopen, in the daemon's page cache.
 *
 * The loader maps them inside libc, out of reach of the mmap symbol. A
 * PT_LOAD segment that is never written (no PF_W) holds the file's bytes
 * as they are, so the inode's memfd can take its place: mapped at a spare
 * address with the same protection and offset, handed to the daemon
 * ("mapf"), then moved over the kernel's mapping with one mremap, which
 * replaces it atomically for any thread running there (the daemon sees a
 * REMAP event and moves the region). Writable segments stay the kernel's:
 * the loader has relocated them. So do the objects the agent runs in: a
 * page of theirs being armed would make it wait for itself.
 *
 * $PAGER_SHIM_TEXT: 0 takes none, libs (the default) only the libraries,
 * anything else (all) the program's executable too.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../lib/compat.h"
#include "shim.h"

#define SHIM_TEXTS 1024

/* Segments taken, by start address (so a second look skips them). */
static uintptr_t texts[SHIM_TEXTS];
static unsigned int nr_texts;

static bool taken(uintptr_t start)
{
	for (unsigned int k = 0; k < nr_texts; k++)
		if (texts[k] == start)
			return true;
	return false;
}

/* Replace [start, start + len) of @path's mapping at file offset @off. */
static void take_segment(const char *path, uintptr_t start, size_t len,
			 off_t off, int prot)
{
	unsigned int id, gen;
	int fd = open(path, O_RDONLY | O_CLOEXEC), mfd;
	void *tmp, *q;

	if (fd < 0)
		return;
	mfd = shim_file_memfd(fd, false, &id, &gen);
	close(fd);
	if (mfd < 0)
		return;
	tmp = (void *)syscall(SYS_mmap, NULL, len, prot,
			      MAP_PRIVATE | PGR_MAP_MARKER, mfd, off);
	close(mfd);
	if (tmp == MAP_FAILED)
		return;
	if (shim_mapf(tmp, len, id, gen, off, false, prot)) {
		syscall(SYS_munmap, tmp, len);
		return;
	}
	q = (void *)syscall(SYS_mremap, tmp, len, len,
			    MREMAP_MAYMOVE | MREMAP_FIXED, start);
	if (q != (void *)start) {
		syscall(SYS_munmap, tmp, len);	/* the kernel's stays */
		return;
	}
	if (nr_texts < SHIM_TEXTS)
		texts[nr_texts++] = start;
}

static int take_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = info->dlpi_name;

	(void)size;
	(void)arg;
	if (shim_agent_runs_in(info))
		return 0;
	if (!name || !*name) {
		const char *mode = getenv("PAGER_SHIM_TEXT");

		if (!mode || !strcmp(mode, "libs"))
			return 0;
		name = "/proc/self/exe";	/* the program itself */
	}
	else if (name[0] != '/')
		return 0;			/* the vDSO */
	for (int k = 0; k < info->dlpi_phnum; k++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[k];
		uintptr_t va = info->dlpi_addr + ph->p_vaddr;
		uintptr_t start = va & ~4095UL;
		uintptr_t end = (va + ph->p_filesz + 4095) & ~4095UL;
		int prot = PROT_READ | ((ph->p_flags & PF_X) ? PROT_EXEC : 0);

		if (ph->p_type != PT_LOAD || (ph->p_flags & PF_W) ||
		    !(ph->p_flags & PF_R) || ph->p_memsz != ph->p_filesz ||
		    (ph->p_vaddr - ph->p_offset) % 4096 || end <= start ||
		    taken(start))
			continue;
		take_segment(name, start, end - start,
			     (off_t)(ph->p_offset & ~4095UL), prot);
	}
	return 0;
}

void shim_take_texts(void)
{
	const char *mode = getenv("PAGER_SHIM_TEXT");

	if (!shim.on || !shim.files || (mode && !strcmp(mode, "0")))
		return;
	pthread_mutex_lock(&shim.sync_lock);
	dl_iterate_phdr(take_object, NULL);
	pthread_mutex_unlock(&shim.sync_lock);
}

void *dlopen(const char *file, int mode)
{
	static void *(*real)(const char *, int);
	void *h;

	if (!real)
		real = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	h = real ? real(file, mode) : NULL;
	if (h) {
		int saved = errno;

		shim_take_texts();
		errno = saved;
	}
	return h;
}
