# stats.gp -- the charts of `make stats`, drawn from the data files that
# scripts/pipeline-stats.sh writes.  Called as
#   gnuplot -e "kind='accuracy'; dir='DIR'; out='OUT.png'; nseq=N; methods='lk hs ...';
#               devices='cpu: ...'" stats.gp
# (devices: what measured the times, named in the timing charts' titles)
# kind:
#   accuracy   AAE and AEE per sequence with ground truth, one bar per method
#              (DIR/matrix.dat: AAE, DIR/aee.dat: AEE), logarithmic axes
#   time       time per pair per sequence, one bar per method (DIR/matrix.dat)
#   time-size  time per pair against the frame size in megapixels, one
#              series per method (DIR/<method>.dat: "megapixels ms sequence")

nm = words(methods)
width = (nseq > 0 ? nseq : 4) * (40 + 14 * nm) + 160
width = (width < 800 ? 800 : (width > 2400 ? 2400 : width))
if (kind eq 'time-size') { width = 900 }
if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size width, (kind eq 'accuracy' ? 900 : 560) font "Sans,10"
} else {
    set terminal png size width, (kind eq 'accuracy' ? 900 : 560)
}
set output out
# twelve colours, not gnuplot's eight: ten methods would share two of them
set linetype 9 lc rgb "#8c510a"
set linetype 10 lc rgb "#ff69b4"
set linetype 11 lc rgb "#7f7f7f"
set linetype 12 lc rgb "#00a0a0"
set linetype cycle 12
set datafile missing "?"
set grid ytics mytics
set key outside right top vertical
set border 3
set tics nomirror

if (kind eq 'accuracy' || kind eq 'time') {
    set style data histograms
    set style histogram clustered gap 1
    set style fill solid 0.85 border -1
    set boxwidth 0.9
    set xtics rotate by -35 left
    set logscale y
    set yrange [*:*]
}

if (kind eq 'accuracy') {
    set lmargin 12
    set multiplot layout 2, 1 title "Accuracy against ground truth (lower is better)"
    set ylabel "AAE (degrees)"
    set format x ""
    plot for [i = 2:nm + 1] dir.'/matrix.dat' using i:xtic(1) title columnhead(i)
    set format x "%g"
    set ylabel "AEE (pixels)"
    plot for [i = 2:nm + 1] dir.'/aee.dat' using i:xtic(1) title columnhead(i)
    unset multiplot
}

if (kind eq 'time') {
    set title "Time per pair (median of the sequence's pairs; lower is better)\non ".devices
    set ylabel "milliseconds"
    plot for [i = 2:nm + 1] dir.'/matrix.dat' using i:xtic(1) title columnhead(i)
}

if (kind eq 'time-size') {
    set title "Time per pair against frame size\non ".devices
    set xlabel "frame size (megapixels)"
    set ylabel "milliseconds"
    set logscale xy
    set border 3
    set key left top inside
    plot for [m in methods] dir.'/'.m.'.dat' using 1:2 with points pointsize 1.5 title m
}
