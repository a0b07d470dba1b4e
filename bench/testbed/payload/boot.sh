#!/bin/sh
# A boot-like run: different programs started one after the other, as services at boot.
set -e
/usr/bin/python3 -c "import os, sys, re, subprocess, logging, argparse"
/usr/bin/perl -MPOSIX -MData::Dumper -MFile::Find -MGetopt::Long -e 'print POSIX::floor(3.7), "\n"' >/dev/null
/usr/bin/gcc -O1 -o /tmp/hello /bench/hello.c
/tmp/hello >/dev/null
/usr/bin/git --version >/dev/null
/usr/bin/git -C /tmp init -q /tmp/repo >/dev/null 2>&1 || true
/bin/ls -l /usr/bin >/dev/null
/usr/bin/sort /usr/share/common-licenses/GPL-3 | /usr/bin/md5sum >/dev/null
/usr/bin/find /etc -name '*.conf' >/dev/null
/usr/bin/objdump -h /bin/ls >/dev/null
