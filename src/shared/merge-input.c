// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a merge reads: each getter asks the parsed pack, or the builder, the
 * same question (libura's readers of a builder answer as those of the pack it
 * would write), so that a learned run is merged without encoding and parsing it.
 */
#include <errno.h>

#include "merge-input.h"

int merge_input_prepare(const struct merge_input *in)
{
	if (!in->pack == !in->builder)
		return -EINVAL;
	return in->builder ? ura_pack_builder_normalize(in->builder) : 0;
}

size_t merge_input_runs(const struct merge_input *in)
{
	return in->pack ? ura_pack_runs(in->pack) : ura_pack_builder_runs(in->builder);
}

int merge_input_get_run(const struct merge_input *in, size_t index, int64_t *ret_created_ns,
			uint64_t *ret_duration_ns)
{
	return in->pack ? ura_pack_get_run(in->pack, index, ret_created_ns, ret_duration_ns) :
	       ura_pack_builder_get_run(in->builder, index, ret_created_ns, ret_duration_ns);
}

void merge_input_get_info(const struct merge_input *in, struct ura_pack_info *ret)
{
	if (in->pack)
		ura_pack_get_info(in->pack, ret);
	else
		ura_pack_builder_get_info(in->builder, ret);
}

size_t merge_input_fs_count(const struct merge_input *in)
{
	return in->pack ? ura_pack_fs_count(in->pack) : ura_pack_builder_fs_count(in->builder);
}

int merge_input_get_fs(const struct merge_input *in, size_t index, struct ura_pack_fs *ret)
{
	return in->pack ? ura_pack_get_fs(in->pack, index, ret) :
	       ura_pack_builder_get_fs(in->builder, index, ret);
}

size_t merge_input_file_count(const struct merge_input *in)
{
	return in->pack ? ura_pack_file_count(in->pack) : ura_pack_builder_file_count(in->builder);
}

int merge_input_get_file(const struct merge_input *in, size_t index, struct ura_pack_file *ret)
{
	return in->pack ? ura_pack_get_file(in->pack, index, ret) :
	       ura_pack_builder_get_file(in->builder, index, ret);
}

size_t merge_input_range_count(const struct merge_input *in)
{
	return in->pack ? ura_pack_range_count(in->pack) : ura_pack_builder_range_count(in->builder);
}

int merge_input_get_range(const struct merge_input *in, size_t index, struct ura_pack_range *ret,
			  uint64_t *ret_mask)
{
	int r;

	if (in->pack) {
		if ((r = ura_pack_get_range(in->pack, index, ret)) < 0)
			return r;
		return ura_pack_get_range_support(in->pack, index, NULL, ret_mask);
	}
	if ((r = ura_pack_builder_get_range(in->builder, index, ret)) < 0)
		return r;
	return ura_pack_builder_get_range_support(in->builder, index, NULL, ret_mask);
}

size_t merge_input_pending_count(const struct merge_input *in)
{
	return in->pack ? ura_pack_pending_count(in->pack) :
	       ura_pack_builder_pending_count(in->builder);
}

int merge_input_get_pending(const struct merge_input *in, size_t index,
			    struct ura_pack_range *ret, uint64_t *ret_mask)
{
	return in->pack ? ura_pack_get_pending(in->pack, index, ret, NULL, ret_mask) :
	       ura_pack_builder_get_pending(in->builder, index, ret, NULL, ret_mask);
}

size_t merge_input_meta_count(const struct merge_input *in)
{
	return in->pack ? ura_pack_meta_count(in->pack) : ura_pack_builder_meta_count(in->builder);
}

int merge_input_get_meta(const struct merge_input *in, size_t index, struct ura_pack_meta *ret,
			 uint64_t *ret_mask)
{
	int r;

	if (in->pack) {
		if ((r = ura_pack_get_meta(in->pack, index, ret)) < 0)
			return r;
		return ura_pack_get_meta_support(in->pack, index, NULL, ret_mask);
	}
	if ((r = ura_pack_builder_get_meta(in->builder, index, ret)) < 0)
		return r;
	return ura_pack_builder_get_meta_support(in->builder, index, NULL, ret_mask);
}
