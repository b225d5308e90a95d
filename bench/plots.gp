# The plots of docs/PERFORMANCE.md, from the benchmarks' CSV files:
#
#   gnuplot -e "csv='bench/results'; out='docs/plots'" bench/plots.gp
#
# csv: a folder with refresh.csv (bench_refresh --csv), replay.csv
# (bench_replay --csv), bench_trainer.csv and torch_mlp.csv
# (bench/trainer/run_bench.sh), as scripts/gpu-verify bench writes them.
# out: where the PNG files go. Columns are found by their header names, and
# lines starting with # are comments, so the committed CSV files and a fresh
# run's read the same. Needs gnuplot 5.4 with the pngcairo terminal
# (Debian: gnuplot-nox).
if (!exists("csv") || !exists("out")) {
  print "usage: gnuplot -e \"csv='DIR'; out='DIR'\" bench/plots.gp"
  exit status 2
}
set datafile separator ","
set datafile columnheaders
set terminal pngcairo size 1200,600 font "DejaVu Sans,11" noenhanced
set grid ytics
set key top left
set style fill solid 0.9 border -1

# --- FP8 refresh bandwidth against the copy, per set and mode ------------
refresh = csv."/refresh.csv"
set output out."/refresh_bandwidth.png"
set title "FP8 refresh (one launch for the whole set) against a device-to-device copy of the same bytes\nT transpose, C cast, CT cast-transpose; the percentage is the refresh's share of the copy's bandwidth"
set ylabel "GB/s (bytes read + written)"
set yrange [0:5000]
set key top right
set bmargin 5
set style data histograms
set style histogram clustered gap 1
set boxwidth 1 relative
set xtics scale 0
short(mode) = mode eq "transpose" ? "T" : mode eq "cast" ? "C" : "CT"
master(m) = m eq "-" ? "" : " ".m
tic(s, mode, m, pct) = sprintf("%s\n%s%s\n%.0f%%", s, short(mode), master(m), pct)
plot refresh using "fused_gbs":xtic(tic(strcol("set"), strcol("mode"), strcol("master"), column("pct_of_copy"))) \
       title "stepgraph refresh" lc rgb "#2b6cb0", \
     '' using "copy_gbs" title "copy (cudaMemcpyAsync, same run)" lc rgb "#a0aec0"
set bmargin
set key top left

# --- Training step time: eager, graph, PyTorch --------------------------
trainer = csv."/bench_trainer.csv"
torch = csv."/torch_mlp.csv"
set output out."/trainer_step_time.png"
set title "FP8 trainer step time: eager, as a stepgraph graph, and PyTorch's torch.cuda.graph of the same model"
set ylabel "ms per step (log scale)"
set logscale y
set yrange [0.05:100]
set xtics font ",11"
config(l, h, b) = sprintf("%d layers x %d, batch %d", l, h, b)
# Clustered bars of three series: the k-th sits at row - 0.25 + 0.25 k.
at(k) = column(0) - 0.25 + 0.25 * k
plot trainer using "eager_ms":xtic(config(column("layers"), column("hidden"), column("batch"))) \
       title "stepgraph eager" lc rgb "#a0aec0", \
     '' using "graph_ms" title "stepgraph graph" lc rgb "#2b6cb0", \
     torch using "graph_ms" title "PyTorch torch.cuda.graph (BF16 autocast)" lc rgb "#dd6b20", \
     trainer using (at(0)):"eager_ms":(sprintf("%.3g", column("eager_ms"))) with labels offset 0,0.8 notitle, \
     '' using (at(1)):"graph_ms":(sprintf("%.3g", column("graph_ms"))) with labels offset 0,0.8 notitle, \
     torch using (at(2)):"graph_ms":(sprintf("%.3g", column("graph_ms"))) with labels offset 0,0.8 notitle
unset logscale y

# --- Replay: GPU time per node against a raw CUDA graph; host time --------
replay = csv."/replay.csv"
set output out."/replay_per_node.png"
pick(section, variant) = strcol("section") eq section && strcol("variant") eq variant ? column("value") : NaN
stats replay using (pick("host_per_call", "raw cudaGraphLaunch")) name "RAW" nooutput
stats replay using (pick("host_per_call", "plugin replay")) name "PLUGIN" nooutput
# Each variant's rows into a datablock of its own, so its points join up.
per_node(variant) = strcol("section") eq "per_node" && strcol("variant") eq variant
set table $raw
plot replay using (column("n")):(column("value")) with table if (per_node("raw_graph"))
set table $plugin
plot replay using (column("n")):(column("value")) with table if (per_node("plugin_replay"))
unset table
set datafile nocolumnheaders
set datafile separator whitespace
set multiplot layout 1,2 title "Replay: stepgraph against a raw cudaGraphLaunch of the same executable"
set title "GPU time per node, N tiny kernels back to back"
set logscale x
set xrange [50:20000]
set yrange [0:1]
set xlabel "N (nodes in the graph)"
set ylabel "us per node"
set key bottom right
plot $raw using 1:2 with linespoints title "raw CUDA graph" lw 2 pt 7 ps 1.5 lc rgb "#a0aec0", \
     $plugin using 1:2 with linespoints title "stepgraph replay" lw 2 pt 6 ps 2 dt 2 lc rgb "#2b6cb0"
unset logscale x
set title "Host time per call, one-node graph (median)"
set xrange [-0.6:1.6]
set yrange [0:*]
set xlabel ""
set ylabel "us per call"
set xtics ("raw cudaGraphLaunch" 0, "stepgraph replay" 1)
set boxwidth 0.6 absolute
unset key
plot '+' using (0):(RAW_max):(sprintf("%.3f", RAW_max)) every ::0::0 with labels offset 0,1, \
     '+' using (1):(PLUGIN_max):(sprintf("%.3f (+%.3f)", PLUGIN_max, PLUGIN_max - RAW_max)) every ::0::0 with labels offset 0,1, \
     '+' using (0):(RAW_max) every ::0::0 with boxes lc rgb "#a0aec0", \
     '+' using (1):(PLUGIN_max) every ::0::0 with boxes lc rgb "#2b6cb0"
unset multiplot
