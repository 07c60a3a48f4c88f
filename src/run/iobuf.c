/*
 * iobuf.c
 *		Memory for O_DIRECT buffers: 2 MB huge pages where the kernel gives
 *		them (ranread.huge_pages), 4 kB pages otherwise.
 *
 * A direct I/O reaches the device as one segment per physically contiguous
 * piece of its buffer.  In 4 kB pages a 64 kB read is up to 16 segments and a
 * 1 MB read up to 256; in a 2 MB page each is one.  On paravirtual disks the
 * host handles every segment, so the page size alone can halve large-block
 * throughput, for fio as for ranread (bench/RESULTS.md has the figures, with
 * fio's --iomem=mmaphuge beside its default).  A benchmark should
 * measure the device, not the buffer layout, so ranread asks for huge pages
 * and records in each batch what it got.
 *
 * The buffers are anonymous memory aligned to 2 MB, marked MADV_HUGEPAGE and
 * then collapsed with MADV_COLLAPSE (Linux 6.1), which works whatever the
 * system-wide transparent_hugepage setting is and says whether it succeeded;
 * older kernels are asked through /proc/self/smaps.  A worker's buffers
 * take at least one 2 MB page, whatever their size.
 * No hugetlb pages are taken: those belong to shared_buffers.
 */
#include "postgres.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <errno.h>
#include <stdio.h>

#include "iobuf.h"

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HUGE_PAGE_SIZE ((Size) 2 * 1024 * 1024)

#define BASE_PAGE_SIZE ((Size) 4096)

/* The length mapped for size bytes: whole huge pages, or whole base pages */
Size
ranread_iobuf_length(Size size, bool huge)
{
	return TYPEALIGN(huge ? HUGE_PAGE_SIZE : BASE_PAGE_SIZE, Max(size, 1));
}

/*
 * Is all of [buf, buf + len) in huge pages, by the kernel's own count?  For
 * kernels without MADV_COLLAPSE (before 6.1), where MADV_HUGEPAGE and the
 * first touch may still have given huge pages: AnonHugePages of the mapping
 * in /proc/self/smaps.
 */
static bool
mapping_is_huge(char *buf, Size len)
{
	FILE	   *f = fopen("/proc/self/smaps", "r");
	char		line[256];
	bool		ours = false;
	bool		huge = false;

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f))
	{
		unsigned long lo,
					hi;
		unsigned long kb;

		/* a mapping's first line; ours only if not merged with a neighbour */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)
			ours = (char *) lo == buf && (char *) hi == buf + len;
		else if (ours && sscanf(line, "AnonHugePages: %lu kB", &kb) == 1)
		{
			huge = (Size) kb * 1024 >= len;
			break;
		}
	}
	fclose(f);
	return huge;
}

/*
 * Zeroed buffers of at least size bytes, page aligned (2 MB aligned when
 * huge), every page touched so that no fault lands in a measured I/O; NULL
 * when out of memory.  *pages (if not NULL) says whether all of it is in
 * huge pages; huge false asks for base pages.  Free with ranread_iobuf_free
 * and the same size and huge.
 */
char *
ranread_iobuf_alloc(Size size, bool huge, RanreadPages *pages)
{
	Size		len = ranread_iobuf_length(size, huge);
	RanreadPages got = PAGES_SMALL;
	char	   *buf;

	if (!huge)
	{
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (buf == MAP_FAILED)
			return NULL;
		(void) madvise(buf, len, MADV_NOHUGEPAGE);
		memset(buf, 0, len);
	}
	else
	{
		/* map 2 MB more than needed, then trim to a 2 MB-aligned piece */
		char	   *map = mmap(NULL, len + HUGE_PAGE_SIZE, PROT_READ | PROT_WRITE,
							   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		Size		head;

		if (map == MAP_FAILED)
			return NULL;
		buf = (char *) TYPEALIGN(HUGE_PAGE_SIZE, map);
		head = buf - map;
		if (head > 0)
			munmap(map, head);
		munmap(buf + len, HUGE_PAGE_SIZE - head);

		(void) madvise(buf, len, MADV_HUGEPAGE);
		memset(buf, 0, len);
		if (madvise(buf, len, MADV_COLLAPSE) == 0 ||
			(errno == EINVAL && mapping_is_huge(buf, len)))
			got = PAGES_HUGE;
	}
	if (pages)
		*pages = got;
	return buf;
}

void
ranread_iobuf_free(char *buf, Size size, bool huge)
{
	if (buf != NULL)
		munmap(buf, ranread_iobuf_length(size, huge));
}

/*
 * May a batch whose workers map bytes of buffers in all register them with
 * io_uring?  Registered buffers are pinned, and the kernel charges them to
 * the postgres user's RLIMIT_MEMLOCK (8 MB by default, shared by every
 * process of that user): a batch registers only when all of its buffers
 * fit, so that its processes all do the same work per I/O (a registered
 * buffer saves the pinning of its pages at every I/O; the device sees the
 * same segments either way).  Other processes of the user may still hold
 * some of the limit: each worker records whether it got it.
 */
bool
ranread_iobuf_may_register(double bytes, double *limit)
{
	struct rlimit rl;

	*limit = -1;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0)
		return false;
	if (rl.rlim_cur == RLIM_INFINITY)
		return true;
	*limit = (double) rl.rlim_cur;
	return bytes <= *limit;
}

const char *
ranread_pages_name(RanreadPages pages)
{
	switch (pages)
	{
		case PAGES_HUGE:
			return "huge";
		case PAGES_SMALL:
			return "small";
		case PAGES_MIXED:
			return "mixed";
		default:
			return NULL;
	}
}
