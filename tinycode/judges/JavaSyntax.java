import com.sun.source.util.JavacTask;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * Parses Java texts with javac's own parser, nothing more: no attribution, so unknown
 * names and missing imports are not its business. tinycode's judge for Java.
 *
 * <p>With a file's path: prints its syntax errors on stderr as javac does and exits 1
 * (0 when there are none). Without: serves texts, one JSON request per line on stdin
 * ({"id", "filename", "source": base64}), one JSON answer per line on stdout ({"id",
 * "status", "stderr"}), so that one JVM judges every text of a run.
 *
 * <p>A text that uses a feature newer than this JDK reads (a preview feature, a
 * construct of a later release) gets no verdict: a note, exit 1, and no error line.
 */
public final class JavaSyntax {
    private static final JavaCompiler COMPILER = ToolProvider.getSystemJavaCompiler();
    private static final Pattern ID = Pattern.compile("\"id\"\\s*:\\s*(\\d+)");
    private static final Pattern NAME = Pattern.compile("\"filename\"\\s*:\\s*\"([\\w.]+)\"");
    private static final Pattern SOURCE = Pattern.compile("\"source\"\\s*:\\s*\"([A-Za-z0-9+/=]*)\"");

    private JavaSyntax() {
    }

    /** javac's syntax errors in the format javac prints them: "NAME:LINE:COLUMN: error: MESSAGE [code]". */
    static String check(String name, String text) {
        DiagnosticCollector<JavaFileObject> found = new DiagnosticCollector<>();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return text;
            }
        };
        JavacTask task = (JavacTask) COMPILER.getTask(null, null, found, List.of("-proc:none", "-Xlint:none"), null,
                List.of(file));
        try {
            task.parse();
        } catch (Exception | StackOverflowError e) {
            return name + ":1:1: error: the parser failed: " + e + " [tinycode.parser.failed]\n";
        }
        StringBuilder out = new StringBuilder();
        for (Diagnostic<? extends JavaFileObject> d : found.getDiagnostics()) {
            if (d.getKind() != Diagnostic.Kind.ERROR) {
                continue;
            }
            String code = d.getCode();
            if (code.contains("preview") || code.contains("not.supported")) {
                return name + ": note: newer Java than this javac reads [" + code + "]\n";
            }
            String message = d.getMessage(Locale.ROOT).split("\n", 2)[0];
            out.append(name).append(':').append(Math.max(d.getLineNumber(), 1)).append(':')
                    .append(Math.max(d.getColumnNumber(), 1)).append(": error: ").append(message)
                    .append(" [").append(d.getCode()).append("]\n");
        }
        return out.toString();
    }

    private static String quoted(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20 || c > 0x7e) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static String answer(String request) {
        Matcher id = ID.matcher(request);
        Matcher name = NAME.matcher(request);
        Matcher source = SOURCE.matcher(request);
        if (!id.find() || !name.find() || !source.find()) {
            return "{\"id\": null, \"fallback\": true}";
        }
        String text = new String(Base64.getDecoder().decode(source.group(1)), StandardCharsets.UTF_8);
        String stderr = check(name.group(1), text);
        return "{\"id\": " + id.group(1) + ", \"status\": " + (stderr.isEmpty() ? 0 : 1) + ", \"stderr\": "
                + quoted(stderr) + "}";
    }

    public static void main(String[] args) throws Exception {
        if (COMPILER == null) {
            System.err.println("no Java compiler in this runtime (a JRE, not a JDK)");
            System.exit(2);
        }
        if (args.length == 1) {
            Path path = Path.of(args[0]);
            String stderr = check(path.getFileName().toString(), Files.readString(path, StandardCharsets.UTF_8));
            System.err.print(stderr);
            System.exit(stderr.isEmpty() ? 0 : 1);
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            out.println(answer(line));
        }
    }
}
