src/pack.o: src/pack.c include/ura/pack.h src/crc32c.h \
 src/pack-internal.h
include/ura/pack.h:
src/crc32c.h:
src/pack-internal.h:
