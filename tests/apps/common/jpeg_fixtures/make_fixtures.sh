#!/usr/bin/env bash
# make_fixtures.sh -- remakes the JPEG fixtures that test_jpeg reads (see
# README.md beside it), with ImageMagick's convert (6.9) and libjpeg-turbo's
# jpegtran (libjpeg-turbo-progs). Not run by the build or the tests: the
# files are committed, so that the decoder is tested on JPEGs that other
# encoders wrote.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
src=$(mktemp --suffix=.png)
trap 'rm -f "$src"' EXIT
# 61 x 45: odd sides, so every subsampling has partial blocks at the edges.
convert -size 61x45 gradient:'#2040c0-#f0c020' -fill '#c02020' -draw 'rectangle 10,8 30,30' \
    -fill '#20a040' -draw 'circle 45,25 52,32' -depth 8 -strip "$src"
jpeg() { convert "$src" -strip "$@"; }
jpeg -quality 85 -sampling-factor 2x2 baseline_420.jpg
jpeg -quality 85 -sampling-factor 2x1 s422.jpg
jpeg -quality 85 -sampling-factor 1x2 s440.jpg
jpeg -quality 85 -sampling-factor 4x1 s411.jpg
jpeg -quality 92 -sampling-factor 1x1 s444.jpg
jpeg -quality 85 -sampling-factor 2x2 -interlace JPEG progressive.jpg
jpeg -quality 85 -colorspace Gray gray.jpg
jpeg -quality 85 -colorspace CMYK cmyk.jpg
# Lossless transcodes of baseline_420.jpg: the same coefficients, so the
# same pixels, through arithmetic coding and through a restart marker after
# every MCU.
jpegtran -arithmetic baseline_420.jpg >arithmetic.jpg
jpegtran -restart 1 baseline_420.jpg >restart.jpg
