# make bench's plot of the sequential reads (scripts/bench.sh):
#   gnuplot -c scripts/bench-seq-read.gp OUT SEQ_MIB
# plots OUT/seq-read.dat (scripts/bench_report.py) into OUT/seq-read.png.
out = ARG1
set terminal pngcairo noenhanced size 1100,560 font "DejaVu Sans,10"
set output out . "/seq-read.png"
set title "Sequential read after drop_caches, " . ARG2 . " MiB, relative to the plain read of the same filesystem (medians, one VM run)"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set ylabel "throughput / plain read"
set yrange [0:1.15]
set grid ytics
set key below
set xtics rotate by -30 nomirror
plot out . "/seq-read.dat" using 2:xtic(1) title "measured read" lc rgb "#1f77b4", \
     "" using 3 title "limit: min(plain, kernel hash, 1 stream)" lc rgb "#ff7f0e", \
     "" using 4 title "min(plain, kernel hash on all CPUs)" lc rgb "#c7c7c7"
