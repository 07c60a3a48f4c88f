/*
 * iobuf.c
 *		Memory for O_DIRECT buffers: 2 MB huge pages where the kernel gives
 *		them (ranread.huge_pages), 4 kB pages otherwise.
 *
 * A direct I/O reaches the device as one segment per physically contiguous
 * piece of its buffer.  In 4 kB pages a 64 kB read is up to 16 segments and a
 * 1 MB read up to 256; in a 2 MB page each is one.  On paravirtual disks the
 * host handles every segment, so the page size alone can halve large-block
 * throughput (measured on a virtio disk: 64 kB random reads 18k -> 37k IOPS,
 * and fio moves the same way with --iomem=mmaphuge).  A benchmark should
 * measure the device, not the buffer layout, so ranread asks for huge pages
 * and records in each batch what it got.
 *
 * The buffers are anonymous memory aligned to 2 MB, marked MADV_HUGEPAGE and
 * then collapsed with MADV_COLLAPSE (Linux 6.1), which works whatever the
 * system-wide transparent_hugepage setting is and says whether it succeeded.
 * No hugetlb pages are taken: those belong to shared_buffers.
 */
#include "ranread.h"

#include <sys/mman.h>

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

#define HUGE_PAGE_SIZE ((Size) 2 * 1024 * 1024)

/* The length mapped for size bytes */
static Size
iobuf_length(Size size)
{
	return TYPEALIGN(HUGE_PAGE_SIZE, Max(size, 1));
}

/*
 * Zeroed buffers of at least size bytes, 2 MB aligned, every page touched (so
 * no fault lands in a measured I/O); NULL when out of memory.  *pages says
 * whether all of it is in huge pages; huge false asks for base pages.
 */
char *
ranread_iobuf_alloc(Size size, bool huge, RanreadPages *pages)
{
	Size		len = iobuf_length(size);
	char	   *map;
	char	   *buf;
	Size		head;

	/* map 2 MB more than needed, then trim to a 2 MB-aligned piece */
	map = mmap(NULL, len + HUGE_PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	buf = (char *) TYPEALIGN(HUGE_PAGE_SIZE, map);
	head = buf - map;
	if (head > 0)
		munmap(map, head);
	munmap(buf + len, HUGE_PAGE_SIZE - head);

	*pages = PAGES_SMALL;
	if (huge)
	{
		(void) madvise(buf, len, MADV_HUGEPAGE);
		memset(buf, 0, len);
		if (madvise(buf, len, MADV_COLLAPSE) == 0)
			*pages = PAGES_HUGE;
	}
	else
	{
		(void) madvise(buf, len, MADV_NOHUGEPAGE);
		memset(buf, 0, len);
	}
	return buf;
}

void
ranread_iobuf_free(char *buf, Size size)
{
	if (buf != NULL)
		munmap(buf, iobuf_length(size));
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
