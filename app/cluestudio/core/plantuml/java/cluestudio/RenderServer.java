/*
 * ClueStudio's PlantUML render server: one warm JVM, one request at a time, length-framed.
 *
 * Why not PlantUML's own -pipe mode: its answers end with a delimiter line that a diagram can
 * read (%getenv("sun.java.command")) and print, which puts every later answer one request out
 * of step. Here a diagram can never write to the channel: System.out and System.err are
 * captured per request, and only this class writes frames, each carrying its own length and
 * the request id it answers. OptionFlags.setAllowIncludeFalse() (PlantUML up to 1.2023) makes
 * %getenv and %file_exists answer nothing; newer PlantUML has no such switch and its SANDBOX
 * security profile (set on the command line) guards them, and the JVM's environment holds
 * nothing secret (renderer.py) either way.
 *
 * One source for old and new PlantUML (1.2022.6 up to 1.2026.x, a user's own jar included):
 * the few classes that moved between packages (StringLocated, LineLocation, UmlDiagramType)
 * are reached by reflection, by method name, never by their type.
 *
 * Protocol (stdin/stdout, bytes):
 *   request:  "<id> <command> <length>\n" then <length> bytes of UTF-8 diagram text
 *             command: png | svg | xmi | xmi:star | xmi:argo | syntax | preproc
 *   answer:   "<id> <status> <bodyLength> <logLength>\n" then body, then log
 *             status: OK | ERROR | CRASH | OOM; log = what PlantUML printed meanwhile
 *   ERROR body: "<0-based line index>\n<message>\n..."; syntax OK body: "<TYPE>\n<description>";
 *   preproc OK body: one "<0-based source line index>\t<expanded line>\n" per line.
 * Arguments are PlantUML config lines applied to every diagram (e.g. "!pragma layout smetana",
 * what the command line's -Playout=smetana adds).
 * Built by scripts/build_render_server.sh; the jar's manifest records this file's SHA-256.
 */
package cluestudio;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import net.sourceforge.plantuml.BlockUml;
import net.sourceforge.plantuml.ErrorUml;
import net.sourceforge.plantuml.FileFormat;
import net.sourceforge.plantuml.FileFormatOption;
import net.sourceforge.plantuml.OptionFlags;
import net.sourceforge.plantuml.SourceStringReader;
import net.sourceforge.plantuml.core.Diagram;
import net.sourceforge.plantuml.error.PSystemError;
import net.sourceforge.plantuml.preproc.Defines;

public final class RenderServer {
    private static final int MAX_HEADER = 256;
    private static final int MAX_LOG = 64 * 1024;

    private RenderServer() {
    }

    /** What PlantUML prints while it works, kept per request and never without bound. */
    private static final class Capture extends OutputStream {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
            if (bytes.size() < MAX_LOG) {
                bytes.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, Math.max(0, Math.min(len, MAX_LOG - bytes.size())));
        }

        synchronized byte[] take() {
            byte[] out = bytes.toByteArray();
            bytes.reset();
            return out;
        }
    }

    private static final class Answer {
        final String status;
        final byte[] body;

        Answer(String status, byte[] body) {
            this.status = status;
            this.body = body;
        }

        static Answer text(String status, String body) {
            return new Answer(status, body.getBytes(StandardCharsets.UTF_8));
        }
    }

    /** {@code target.name()} by reflection (public methods only), its exception unwrapped. */
    private static Object call(Object target, String name) {
        try {
            Method method = target.getClass().getMethod(name);
            method.setAccessible(true);  // a public method of a package-private class
            return method.invoke(target);
        } catch (InvocationTargetException error) {
            Throwable cause = error.getCause();
            throw cause instanceof RuntimeException ? (RuntimeException) cause
                    : new IllegalStateException(cause);
        } catch (ReflectiveOperationException error) {
            throw new IllegalStateException("PlantUML has no " + name + "() here", error);
        }
    }

    private static int position(Object located) {
        return ((Number) call(call(located, "getLocation"), "getPosition")).intValue();
    }

    /**
     * PlantUML 1.2023 on: the SANDBOX security profile (the -D option renderer.py passes)
     * guards %getenv and %file_exists. PlantUML reads it once; we refuse to run without it,
     * then drop the property, which %getenv would otherwise show (it lets a diagram read
     * every variable whose name starts with "plantuml").
     */
    private static void sandbox() throws IOException {
        String profile;
        try {
            profile = String.valueOf(Class.forName("net.sourceforge.plantuml.security.SecurityUtils")
                    .getMethod("getSecurityProfile").invoke(null));
        } catch (ReflectiveOperationException error) {
            throw new IOException("cannot read PlantUML's security profile", error);
        }
        if (!"SANDBOX".equals(profile)) {
            throw new IOException("PlantUML runs with the " + profile + " security profile, "
                    + "not SANDBOX: start it with -DPLANTUML_SECURITY_PROFILE=SANDBOX");
        }
        System.clearProperty("PLANTUML_SECURITY_PROFILE");
    }

    public static void main(String[] args) throws IOException {
        try {
            OptionFlags.class.getMethod("setAllowIncludeFalse").invoke(null);
        } catch (NoSuchMethodException newerPlantUml) {
            sandbox();
        } catch (ReflectiveOperationException error) {
            throw new IOException("cannot switch off PlantUML's includes", error);
        }
        List<String> config = Arrays.asList(args);
        OutputStream out = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16);
        DataInputStream in = new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in), 1 << 16));
        Capture capture = new Capture();
        PrintStream printed = new PrintStream(capture, true, "UTF-8");
        System.setOut(printed);
        System.setErr(printed);
        while (true) {
            String header = readHeader(in);
            if (header == null) {
                return;
            }
            String[] parts = header.split(" ");
            if (parts.length != 3) {
                throw new IOException("bad request header");
            }
            int length = Integer.parseInt(parts[2]);
            if (length < 0 || length > (64 << 20)) {
                throw new IOException("bad request length");
            }
            byte[] body = new byte[length];
            in.readFully(body);
            capture.take();
            Answer answer;
            boolean exitAfter = false;
            try {
                answer = handle(parts[1], new String(body, StandardCharsets.UTF_8), config);
            } catch (OutOfMemoryError error) {
                // A JVM that ran out of memory may hold broken state: answer, then leave.
                body = null;
                answer = Answer.text("OOM", "the diagram needs more memory than the JVM's limit");
                exitAfter = true;
            } catch (StackOverflowError error) {
                answer = Answer.text("CRASH", "java.lang.StackOverflowError");
                exitAfter = true;
            } catch (Throwable error) {
                answer = Answer.text("CRASH", String.valueOf(error));
            }
            writeAnswer(out, parts[0], answer, capture.take());
            if (exitAfter) {
                System.exit(3);
            }
        }
    }

    private static String readHeader(DataInputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                if (line.size() == 0) {
                    return null;
                }
                throw new IOException("truncated request header");
            }
            if (b == '\n') {
                return new String(line.toByteArray(), StandardCharsets.US_ASCII);
            }
            if (line.size() >= MAX_HEADER) {
                throw new IOException("request header too long");
            }
            line.write(b);
        }
    }

    private static void writeAnswer(OutputStream out, String id, Answer answer, byte[] log) throws IOException {
        String head = id + " " + answer.status + " " + answer.body.length + " " + log.length + "\n";
        out.write(head.getBytes(StandardCharsets.US_ASCII));
        out.write(answer.body);
        out.write(log);
        out.flush();
    }

    private static Answer handle(String command, String text, List<String> config) throws IOException {
        // The preprocessed text is the user's alone: our config lines would show up in it.
        List<String> applied = "preproc".equals(command) ? Collections.<String>emptyList() : config;
        SourceStringReader reader = new SourceStringReader(Defines.createEmpty(), text,
                StandardCharsets.UTF_8, applied, null);
        List<BlockUml> blocks = reader.getBlocks();
        if (blocks.isEmpty()) {
            return Answer.text("ERROR", "0\nNo @startuml/@enduml found");
        }
        BlockUml block = blocks.get(0);
        if ("preproc".equals(command)) {
            return preprocessed(block);
        }
        Diagram diagram = block.getDiagram();
        if ("syntax".equals(command)) {
            if (diagram instanceof PSystemError) {
                return error((PSystemError) diagram);
            }
            String type = "OTHER";
            try {
                type = String.valueOf(diagram.getClass().getMethod("getUmlDiagramType")
                        .invoke(diagram));
            } catch (NoSuchMethodException notUml) {
                // a diagram that is no UML diagram (salt, ditaa, ...): OTHER
            } catch (InvocationTargetException | IllegalAccessException error) {
                throw new IOException("cannot read the diagram type", error);
            }
            return Answer.text("OK", type + "\n" + call(diagram, "getDescription"));
        }
        FileFormat format = format(command);
        if (diagram instanceof PSystemError) {
            return error((PSystemError) diagram);
        }
        ByteArrayOutputStream image = new ByteArrayOutputStream();
        diagram.exportDiagram(image, 0, new FileFormatOption(format, false));
        return new Answer("OK", image.toByteArray());
    }

    private static FileFormat format(String command) throws IOException {
        if ("png".equals(command)) {
            return FileFormat.PNG;
        }
        if ("svg".equals(command)) {
            return FileFormat.SVG;
        }
        if ("xmi".equals(command)) {
            return FileFormat.XMI_STANDARD;
        }
        if ("xmi:star".equals(command)) {
            return FileFormat.XMI_STAR;
        }
        if ("xmi:argo".equals(command)) {
            return FileFormat.XMI_ARGO;
        }
        throw new IOException("unknown command " + command);
    }

    private static Answer error(PSystemError error) {
        StringBuilder body = new StringBuilder();
        body.append(((Number) call(call(error, "getLineLocation"), "getPosition")).intValue())
                .append('\n');
        for (Object one : (Iterable<?>) call(error, "getErrorsUml")) {
            body.append(((ErrorUml) one).getError()).append('\n');
        }
        return Answer.text("ERROR", body.toString());
    }

    private static Answer preprocessed(BlockUml block) {
        StringBuilder body = new StringBuilder();
        for (Object line : block.getData()) {
            Object problem = call(line, "getPreprocessorError");
            if (problem != null) {
                // The diagram's error report locates preprocessor errors better than the
                // marker line does (that one often carries the previous line's position).
                Diagram diagram = block.getDiagram();
                if (diagram instanceof PSystemError) {
                    return error((PSystemError) diagram);
                }
                return Answer.text("ERROR", position(line) + "\n" + problem + "\n");
            }
            body.append(position(line)).append('\t').append(call(line, "getString"))
                    .append('\n');
        }
        return Answer.text("OK", body.toString());
    }
}
