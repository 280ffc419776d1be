# make bench's plot of the time to first byte (scripts/bench.sh):
#   gnuplot -c scripts/bench-ttfb.gp OUT EXT4_GOAL F2FS_GOAL XTICS
# plots OUT/ttfb.dat (scripts/bench_report.py) into OUT/ttfb.png, with each
# filesystem's goal (a factor of the plain first read); XTICS is
# the list of the sizes' tics, '"16" 16, "64" 64, ...'.
out = ARG1
dat = out . "/ttfb.dat"
goal_ext4 = ARG2 + 0
goal_f2fs = ARG3 + 0
set terminal pngcairo noenhanced size 1000,700 font "DejaVu Sans,10"
set output out . "/ttfb.png"
set title "Time to first byte vs file size, relative to the plain file's first 4 KiB read (medians)"
set logscale xy 2
set xlabel "file size (MiB)"
set ylabel "time / plain open + first 4 KiB read"
eval "set xtics (" . ARG4 . ")"
set offsets graph 0.04, graph 0.04, 0, 0
set grid
set key below maxrows 4
set yrange [0.5:*]
plot "< grep ^ext4 " . dat using 2:3 with linespoints lw 2 pt 7 title "ext4: fs-verity open + first 4 KiB", \
     "< grep ^f2fs " . dat using 2:3 with linespoints lw 2 pt 5 title "f2fs: fs-verity open + first 4 KiB", \
     "< grep ^ext4 " . dat using 2:4 with linespoints lw 2 pt 6 dt 2 title "ext4: sha256sum of the whole file", \
     "< grep ^f2fs " . dat using 2:4 with linespoints lw 2 pt 4 dt 2 title "f2fs: sha256sum of the whole file", \
     "< grep ^ext4 " . dat using 2:5 with linespoints lw 2 pt 9 title "ext4: dm-verity", \
     "< grep ^ext4 " . dat using 2:6 with linespoints lw 2 pt 8 dt 4 title "ext4: IMA hash at open", \
     "< grep ^f2fs " . dat using 2:6 with linespoints lw 2 pt 10 dt 4 title "f2fs: IMA hash at open", \
     "< grep ^ext4 " . dat using 2:7 with linespoints lw 2 pt 11 dt 5 title "ext4: IMA digest_type=verity", \
     "< grep ^f2fs " . dat using 2:7 with linespoints lw 2 pt 12 dt 5 title "f2fs: IMA digest_type=verity", \
     goal_ext4 with lines lw 2 dt 3 lc rgb "#d62728" title "ext4's goal: " . ARG2 . "x the plain first read", \
     goal_f2fs with lines lw 2 dt 3 lc rgb "#9467bd" title "f2fs's goal: " . ARG3 . "x the plain first read"
