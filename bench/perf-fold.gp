# ns per token folded into an aggregator against request length, exact and
# bounded mode, beside the target and the floor (one read pass over the
# events). Run by bench/suite.py --plot:
#   gnuplot -e "data='fold.dat'; out='docs/perf-fold.svg'" bench/perf-fold.gp
# data columns: tokens, exact ns/token, bounded ns/token, floor ns/token.
set terminal svg size 720,440 dynamic font "sans,12"
set output out
set title "llmlat: cost of folding a finished request, per token"
set xlabel "request length (tokens, one per event)"
set ylabel "ns per token (log)"
set logscale x 2
set logscale y 10
set xrange [1:4096]
set format x "%.0f"
set grid xtics ytics mxtics mytics lc rgb "#dddddd"
set key top right box opaque
set samples 400
target(x) = 1.5 + 30.0 / x
plot data using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "exact mode", \
     data using 1:3 with linespoints lw 2 pt 5 lc rgb "#d62728" title "bounded mode", \
     target(x) with lines dt 2 lw 2 lc rgb "#2ca02c" title "target (bounded): 1.5 ns + 30 ns / length", \
     data using 1:4 with linespoints lw 1 pt 1 lc rgb "#7f7f7f" title "floor: one read pass over the events"
