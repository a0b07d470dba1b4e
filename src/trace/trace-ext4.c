// SPDX-License-Identifier: GPL-2.0-or-later
/* ext4: the metadata blocks a cold lookup and open of a file reads, from the filesystem's layout */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/openat2.h>

#include <ura/pack.h>

#include "trace-pageset.h"
#include "trace-ext4.h"

#define EXT4_MAGIC		0xEF53
#define INCOMPAT_META_BG	0x10u
#define INCOMPAT_64BIT		0x80u
#define RO_COMPAT_GDT_CSUM	0x10u
#define RO_COMPAT_METADATA_CSUM	0x400u
#define FIEMAP_EXTENTS		32
#define EXT4_MAX_GROUPS		(1u << 24)	/* 2^24 groups of 128 MiB: 2 PiB */

/* A run of blocks to read, and when it is first needed. */
struct blocks {
	uint64_t first, count, first_ns;
};

/* A group's inode table: where it starts, and how many of its inodes are in use. */
struct group {
	uint64_t table;
	uint32_t used_inodes;
	bool loaded;
};

struct ext4_layout {
	int fd;				/* the block device */
	uint32_t block_size, inodes_per_group, inode_size, desc_size, ra_blocks;
	uint64_t gdt_offset;		/* bytes */
	uint64_t blocks;		/* of the filesystem */
	dev_t dev;
	uint32_t ngroups;
	bool group_csum;
	struct group *groups;
	struct blocks *b;
	size_t nb, capb;
	uint64_t *dirs;			/* directory inodes noted (open addressing, 0 empty) */
	size_t ndirs, capdirs;
};

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void ext4_layout_free(struct ext4_layout *l)
{
	if (!l)
		return;
	if (l->fd >= 0)
		close(l->fd);
	free(l->groups);
	free(l->b);
	free(l->dirs);
	free(l);
}

/* The filesystem's inode_readahead_blks (/sys/fs/ext4/NAME/), 32 (the default) if unknown. */
static unsigned inode_readahead_blks(unsigned major, unsigned minor)
{
	char link[PATH_MAX], path[PATH_MAX + 64], val[32];
	unsigned v = 32;
	const char *name;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u", major, minor);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return v;
	link[n] = '\0';
	name = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	snprintf(path, sizeof(path), "/sys/fs/ext4/%s/inode_readahead_blks", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return v;
	n = read(fd, val, sizeof(val) - 1);
	close(fd);
	if (n > 0) {
		val[n] = '\0';
		v = (unsigned)strtoul(val, NULL, 10);
	}
	return v;
}

/*
 * The block device @major:@minor, read-only: /dev/block/M:m, else the node
 * its uevent names in /dev; checked to be that very device. Return: fd or -errno.
 */
static int open_bdev(unsigned major, unsigned minor)
{
	char path[PATH_MAX], ev[512];
	const char *name;
	struct stat st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/dev/block/%u:%u", major, minor);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", major, minor);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		n = read(fd, ev, sizeof(ev) - 1);
		close(fd);
		ev[n > 0 ? n : 0] = '\0';
		name = strstr(ev, "DEVNAME=");
		if (!name)
			return -ENOENT;
		name += 8;
		snprintf(path, sizeof(path), "/dev/%.*s", (int)strcspn(name, "\n"), name);
		if (strstr(path, ".."))
			return -ENOENT;
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW);
		if (fd < 0)
			return -errno;
	}
	if (fstat(fd, &st) < 0 || !S_ISBLK(st.st_mode) || major(st.st_rdev) != major ||
	    minor(st.st_rdev) != minor) {
		close(fd);
		return -ENODEV;
	}
	return fd;
}

int ext4_layout_open(unsigned major, unsigned minor, struct ext4_layout **ret)
{
	unsigned ra_blocks = inode_readahead_blks(major, minor);
	unsigned char sb[1024];
	struct ext4_layout *l;
	uint64_t blocks, first_data, per_group;
	uint32_t incompat, log;
	int r;

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->fd = open_bdev(major, minor);
	if (l->fd < 0) {
		r = l->fd;
		goto fail;
	}
	if (pread(l->fd, sb, sizeof(sb), 1024) != (ssize_t)sizeof(sb)) {
		r = -EIO;
		goto fail;
	}
	r = -EMEDIUMTYPE;
	log = le32(sb + 0x18);
	incompat = le32(sb + 0x60);
	if (le16(sb + 0x38) != EXT4_MAGIC || log > 2 || (incompat & INCOMPAT_META_BG))
		goto fail;
	l->block_size = 1024u << log;
	l->inodes_per_group = le32(sb + 0x28);
	per_group = le32(sb + 0x20);
	l->inode_size = le32(sb + 0x4C) >= 1 ? le16(sb + 0x58) : 128;
	l->desc_size = (incompat & INCOMPAT_64BIT) && le16(sb + 0xFE) >= 64 ? le16(sb + 0xFE) : 32;
	l->group_csum = le32(sb + 0x64) & (RO_COMPAT_GDT_CSUM | RO_COMPAT_METADATA_CSUM);
	first_data = le32(sb + 0x14);
	blocks = le32(sb + 0x04) | ((incompat & INCOMPAT_64BIT) ? (uint64_t)le32(sb + 0x150) << 32 : 0);
	if (!l->inodes_per_group || !per_group || l->inode_size < 128 ||
	    l->inode_size > l->block_size || blocks <= first_data ||
	    (blocks - first_data + per_group - 1) / per_group > EXT4_MAX_GROUPS ||
	    l->desc_size > 1024 || (l->desc_size & (l->desc_size - 1)))
		goto fail;	/* a layout no ext4 has (a damaged or hostile superblock) */
	l->ngroups = (uint32_t)((blocks - first_data + per_group - 1) / per_group);
	l->blocks = blocks;
	l->dev = makedev(major, minor);
	l->gdt_offset = (first_data + 1) * l->block_size;
	l->ra_blocks = ra_blocks & (ra_blocks - 1) ? 0 : ra_blocks;	/* a power of two */
	l->groups = calloc(l->ngroups, sizeof(*l->groups));
	if (!l->groups) {
		r = -ENOMEM;
		goto fail;
	}
	*ret = l;
	return 0;
fail:
	ext4_layout_free(l);
	return r;
}

static const struct group *group_of(struct ext4_layout *l, uint32_t g)
{
	unsigned char d[64];
	struct group *gr = &l->groups[g];

	if (gr->loaded)
		return gr->table ? gr : NULL;
	gr->loaded = true;
	/* a descriptor may be larger than the fields read here (desc_size, up to 1024) */
	if (pread(l->fd, d, sizeof(d) < l->desc_size ? sizeof(d) : l->desc_size,
		  (off_t)(l->gdt_offset + (uint64_t)g * l->desc_size)) !=
	    (ssize_t)(sizeof(d) < l->desc_size ? sizeof(d) : l->desc_size))
		return NULL;
	gr->table = le32(d + 0x08) | (l->desc_size >= 64 ? (uint64_t)le32(d + 0x28) << 32 : 0);
	/* a table past the filesystem's end: a damaged descriptor, nothing derived from it */
	if (gr->table >= l->blocks ||
	    (uint64_t)l->inodes_per_group * l->inode_size / l->block_size > l->blocks - gr->table)
		gr->table = 0;
	gr->used_inodes = l->inodes_per_group;
	if (l->group_csum) {
		uint32_t unused = le16(d + 0x1C) | (l->desc_size >= 64 ? (uint32_t)le16(d + 0x32) << 16 : 0);

		gr->used_inodes = unused < l->inodes_per_group ? l->inodes_per_group - unused : 0;
	}
	return gr->table ? gr : NULL;
}

static int add_blocks(struct ext4_layout *l, uint64_t first, uint64_t count, uint64_t first_ns)
{
	if (!count)
		return 0;
	if (l->nb == l->capb) {
		size_t nc = l->capb ? l->capb * 2 : 256;
		void *p = realloc(l->b, nc * sizeof(*l->b));

		if (!p)
			return -ENOMEM;
		l->b = p;
		l->capb = nc;
	}
	l->b[l->nb++] = (struct blocks){ first, count, first_ns };
	return 0;
}

/* The inode-table blocks ext4 reads for inode @ino when its block is not cached. */
static int note_inode(struct ext4_layout *l, uint64_t ino, uint64_t first_ns)
{
	uint32_t per_block = l->block_size / l->inode_size, g, idx;
	uint64_t block, b, end, table_end;
	const struct group *gr;

	if (!ino || ino > (uint64_t)l->ngroups * l->inodes_per_group)
		return 0;
	g = (uint32_t)((ino - 1) / l->inodes_per_group);
	idx = (uint32_t)((ino - 1) % l->inodes_per_group);
	gr = group_of(l, g);
	if (!gr)
		return 0;
	block = gr->table + idx / per_block;
	if (!l->ra_blocks)
		return add_blocks(l, block, 1, first_ns);
	b = block & ~((uint64_t)l->ra_blocks - 1);
	if (gr->table > b)
		b = gr->table;
	end = b + l->ra_blocks;
	table_end = gr->table + gr->used_inodes / per_block;
	if (end > table_end)
		end = table_end;
	if (end < block)
		end = block;
	return add_blocks(l, b, end - b + 1, first_ns);
}

/* Was directory @ino noted already? Notes it if not. -ENOMEM, 0 new, 1 seen. */
static int dir_seen(struct ext4_layout *l, uint64_t ino)
{
	size_t i;

	if (2 * (l->ndirs + 1) > l->capdirs) {
		size_t nc = l->capdirs ? l->capdirs * 2 : 64;
		uint64_t *d = calloc(nc, sizeof(*d));

		if (!d)
			return -ENOMEM;
		for (size_t k = 0; k < l->capdirs; k++)
			if (l->dirs[k]) {
				for (i = l->dirs[k] * 0x9E3779B97F4A7C15ull % nc; d[i]; i = (i + 1) % nc)
					;
				d[i] = l->dirs[k];
			}
		free(l->dirs);
		l->dirs = d;
		l->capdirs = nc;
	}
	for (i = ino * 0x9E3779B97F4A7C15ull % l->capdirs; l->dirs[i]; i = (i + 1) % l->capdirs)
		if (l->dirs[i] == ino)
			return 1;
	l->dirs[i] = ino;
	l->ndirs++;
	return 0;
}

/* A directory: its inode and its blocks (up to EXT4_DIR_MAX_BYTES). */
static int note_dir(struct ext4_layout *l, int fd, uint64_t ino, uint64_t first_ns)
{
	char buf[sizeof(struct fiemap) + FIEMAP_EXTENTS * sizeof(struct fiemap_extent)];
	struct fiemap *fm = (struct fiemap *)buf;
	int r = dir_seen(l, ino);

	if (r != 0)
		return r < 0 ? r : 0;
	r = note_inode(l, ino, first_ns);
	if (r < 0)
		return r;
	memset(buf, 0, sizeof(buf));
	fm->fm_start = 0;
	fm->fm_length = EXT4_DIR_MAX_BYTES;
	fm->fm_extent_count = FIEMAP_EXTENTS;
	if (ioctl(fd, FS_IOC_FIEMAP, fm) < 0)
		return 0;	/* inline data, or no FIEMAP: the inode holds it */
	for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
		const struct fiemap_extent *e = &fm->fm_extents[i];
		uint64_t len = e->fe_length;

		if (e->fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DATA_INLINE |
				   FIEMAP_EXTENT_NOT_ALIGNED))
			continue;
		if (e->fe_logical >= EXT4_DIR_MAX_BYTES)
			break;
		if (e->fe_logical + len > EXT4_DIR_MAX_BYTES)
			len = EXT4_DIR_MAX_BYTES - e->fe_logical;
		r = add_blocks(l, e->fe_physical / l->block_size,
			       (len + l->block_size - 1) / l->block_size, first_ns);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Open directory @name, never following a link: a mount point from the mount
 * table (@dirfd AT_FDCWD; the caller checks its device), or a name below
 * @dirfd, never crossing into another mount.
 */
static int open_dir(int dirfd, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   (dirfd == AT_FDCWD ? 0 : RESOLVE_NO_XDEV | RESOLVE_BENEATH),
	};
	long fd = syscall(SYS_openat2, dirfd, name, &how, sizeof(how));

	return (int)fd;
}

int ext4_layout_note(struct ext4_layout *l, const char *mount_dir, const char *path, uint64_t ino,
		     uint64_t first_ns)
{
	char comp[256];
	struct stat st;
	dev_t dev;
	int fd, r = 0;

	fd = open_dir(AT_FDCWD, mount_dir);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || st.st_dev != l->dev)
		goto out;	/* not the filesystem of the layout (a mount changed meanwhile) */
	dev = st.st_dev;
	for (const char *p = path;;) {
		const char *slash;
		size_t len;
		int next;

		r = note_dir(l, fd, st.st_ino, first_ns);
		while (*p == '/')
			p++;
		slash = strchr(p, '/');
		if (r < 0 || !slash)
			break;
		len = (size_t)(slash - p);
		p = slash;
		if (!len || len >= sizeof(comp))
			break;
		memcpy(comp, slash - len, len);
		comp[len] = '\0';
		next = open_dir(fd, comp);
		if (next < 0)
			break;
		close(fd);
		fd = next;
		if (fstat(fd, &st) < 0 || st.st_dev != dev)
			goto out;
	}
	if (r == 0)
		r = note_inode(l, ino, first_ns);
out:
	close(fd);
	return r;
}

static int cmp_blocks(const void *a, const void *b)
{
	const struct blocks *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

int ext4_layout_ranges(const struct ext4_layout *l, struct pageset_range **ret, size_t *ret_n)
{
	struct pageset_range *out = NULL;
	struct blocks *b;
	size_t n = 0;

	*ret = NULL;
	*ret_n = 0;
	if (!l->nb)
		return 0;
	b = malloc(l->nb * sizeof(*b));
	out = malloc(l->nb * sizeof(*out));
	if (!b || !out) {
		free(b);
		free(out);
		return -ENOMEM;
	}
	memcpy(b, l->b, l->nb * sizeof(*b));
	qsort(b, l->nb, sizeof(*b), cmp_blocks);
	for (size_t i = 0; i < l->nb; i++) {
		uint64_t first = b[i].first * l->block_size / URA_PACK_PAGE_SIZE;
		uint64_t end = ((b[i].first + b[i].count) * l->block_size + URA_PACK_PAGE_SIZE - 1) /
			       URA_PACK_PAGE_SIZE;
		struct pageset_range *last = n ? &out[n - 1] : NULL;

		if (last && first <= last->first_page + last->page_count) {
			if (end > last->first_page + last->page_count)
				last->page_count = end - last->first_page;
			if (b[i].first_ns < last->first_ns)
				last->first_ns = b[i].first_ns;
			continue;
		}
		out[n++] = (struct pageset_range){ .first_page = first, .page_count = end - first,
						   .demanded = true, .first_ns = b[i].first_ns };
	}
	free(b);
	*ret = out;
	*ret_n = n;
	return 0;
}
