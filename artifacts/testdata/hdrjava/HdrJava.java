// HdrJava reads what benchtui writes with the real HdrHistogram Java
// library, for the tests in hgrm_java_test.go. Modes:
//   hgrm       stdin: one base64 compressed histogram a line; prints each
//              one's outputPercentileDistribution(out, 5, 1000.0), then "=====".
//   pct Q...   stdin: as hgrm; prints getValueAtPercentile(Q) for each Q,
//              space-separated, one line per histogram.
//   hlog FILE  reads the interval log FILE with HistogramLogReader; prints
//              "start <ms>", the StartTime line HistogramLogWriter writes for
//              it, then "interval <start ms> <end ms> <count>" per interval.
//   fmt PREC   stdin: one double's bits (hex) a line; prints String.format("%.PRECf").
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.Locale;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.HdrHistogram.HistogramLogWriter;

public class HdrJava {
    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(System.out, false, "UTF-8");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "UTF-8"));
        switch (args[0]) {
            case "hgrm":
                for (String line; (line = in.readLine()) != null; ) {
                    decode(line).outputPercentileDistribution(out, 5, 1000.0);
                    out.print("=====\n");
                }
                break;
            case "pct":
                for (String line; (line = in.readLine()) != null; ) {
                    Histogram h = decode(line);
                    StringBuilder b = new StringBuilder();
                    for (int i = 1; i < args.length; i++) {
                        if (i > 1) b.append(' ');
                        b.append(h.getValueAtPercentile(Double.parseDouble(args[i])));
                    }
                    out.print(b + "\n");
                }
                break;
            case "hlog": {
                HistogramLogReader r = new HistogramLogReader(args[1]);
                EncodableHistogram h;
                StringBuilder intervals = new StringBuilder();
                while ((h = r.nextIntervalHistogram()) != null) {
                    intervals.append("interval " + h.getStartTimeStamp() + " " + h.getEndTimeStamp() + " "
                            + ((Histogram) h).getTotalCount() + "\n");
                }
                long startMs = Math.round(r.getStartTimeSec() * 1000);
                out.print("start " + startMs + "\n");
                ByteArrayOutputStream line = new ByteArrayOutputStream();
                PrintStream ps = new PrintStream(line, true, "UTF-8");
                new HistogramLogWriter(ps).outputStartTime(startMs);
                out.print(line.toString("UTF-8"));
                out.print(intervals);
                break;
            }
            case "fmt": {
                String f = "%." + args[1] + "f\n";
                for (String line; (line = in.readLine()) != null; ) {
                    out.print(String.format(Locale.US, f, Double.longBitsToDouble(Long.parseUnsignedLong(line, 16))));
                }
                break;
            }
            default:
                throw new IllegalArgumentException(args[0]);
        }
        out.flush();
    }

    static Histogram decode(String base64) throws Exception {
        return Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(Base64.getDecoder().decode(base64.trim())), 0);
    }
}
