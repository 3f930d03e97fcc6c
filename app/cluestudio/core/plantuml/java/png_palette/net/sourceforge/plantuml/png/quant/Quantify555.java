/*
 * A faster, bit-identical Quantify555 for PlantUML 1.2026.2 (MIT build): the step that turns
 * a drawn diagram into a 256-colour palette image before PNG encoding.
 *
 * PlantUML's own class (net.sourceforge.plantuml.png.quant.Quantify555, (C) Arnaud Roques,
 * MIT licence, as the whole MIT build) reads every pixel twice through
 * BufferedImage.getRGB, which goes through the colour model pixel by pixel, and writes every
 * index with WritableRaster.setSample: that took more than half of a PNG render's CPU (JFR
 * samples, docs/adr/0002). This port does the same arithmetic on the raster's int array and
 * writes the indices in one call. Same palette, same order, same indices, same fall-backs
 * (null when over 256 or under 32 colour cubes, or on any error): the same packed image,
 * which tests/test_render_png.py compares with PlantUML's own class's (decoded, as our
 * writer, cluestudio/png/IndexedPngWriter, compresses it differently).
 *
 * It shadows PlantUML's class only because renderer.py puts this jar before PlantUML's on the
 * class path, and only when PlantUML's Quantify555.class and Cube555.class are the exact
 * bytes this was ported from (their SHA-256 in renderer.py): any other jar keeps its own.
 * QuantifyPacked28.java does the same for the fall-back packer. Built by
 * scripts/build_render_server.sh.
 */
package net.sourceforge.plantuml.png.quant;

import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.awt.image.WritableRaster;
import java.util.Arrays;

public final class Quantify555 {
    private static final int CUBE_COUNT_RGB555 = 32768;
    private static final int TRANSPARENT_CUBE = CUBE_COUNT_RGB555;
    private static final int TOTAL_CUBE_SLOTS = CUBE_COUNT_RGB555 + 1;
    private static final int MIN_CUBES_THRESHOLD = 32;
    private static final int MAX_CUBES = 256;
    private static final int SUB_COLORS = 512;

    public static BufferedImage packMeIfPossible(BufferedImage image) {
        try {
            return pack(image);
        } catch (Throwable error) {
            return null;  // as PlantUML's: any failure means "not packable", PNG stays RGB
        }
    }

    private static BufferedImage pack(BufferedImage image) {
        int width = image.getWidth();
        int height = image.getHeight();
        int[] argb = argbPixels(image, width, height);
        // slot[cube]: the order in which the cube was first seen (its row in counts), or -1.
        int[] slot = new int[TOTAL_CUBE_SLOTS];
        Arrays.fill(slot, -1);
        int[][] counts = new int[MAX_CUBES][];
        int cubes = 0;
        int previous = 0;
        int[] previousCounts = null;
        int previousSub = 0;
        for (int pixel : argb) {
            // Runs of one colour (background, fills) skip the cube look-up.
            if (previousCounts != null && pixel == previous) {
                previousCounts[previousSub]++;
                continue;
            }
            int cube = getCubeIndex(pixel);
            int row = slot[cube];
            if (row < 0) {
                if (cubes >= MAX_CUBES) {
                    return null;
                }
                row = cubes++;
                slot[cube] = row;
                counts[row] = new int[SUB_COLORS];
            }
            int sub = cube == TRANSPARENT_CUBE ? 0 : subColorIndex512(pixel);
            counts[row][sub]++;
            previous = pixel;
            previousCounts = counts[row];
            previousSub = sub;
        }
        if (cubes < MIN_CUBES_THRESHOLD) {
            return null;
        }
        // The palette lists cubes in cube order (PlantUML walks its cube array by index).
        int[] paletteIndex = new int[TOTAL_CUBE_SLOTS];
        int[] palette = new int[MAX_CUBES];
        int size = 0;
        for (int cube = 0; cube < TOTAL_CUBE_SLOTS; cube++) {
            int row = slot[cube];
            if (row >= 0) {
                palette[size] = representativeARGB(cube, best(counts[row]));
                paletteIndex[cube] = size++;
            }
        }
        BufferedImage indexed = new BufferedImage(width, height, BufferedImage.TYPE_BYTE_INDEXED,
                buildICM(palette, size));
        byte[] indices = new byte[argb.length];
        int previousPixel = 0;
        byte previousIndex = 0;
        for (int i = 0; i < argb.length; i++) {
            int pixel = argb[i];
            if (i == 0 || pixel != previousPixel) {
                previousPixel = pixel;
                previousIndex = (byte) paletteIndex[getCubeIndex(pixel)];
            }
            indices[i] = previousIndex;
        }
        WritableRaster raster = indexed.getRaster();
        raster.setDataElements(0, 0, width, height, indices);
        return indexed;
    }

    /** What {@code image.getRGB(0, 0, w, h, null, 0, w)} answers, without a colour-model
     *  call per pixel for the packed int images PlantUML draws into. */
    private static int[] argbPixels(BufferedImage image, int width, int height) {
        int type = image.getType();
        if (type == BufferedImage.TYPE_INT_RGB || type == BufferedImage.TYPE_INT_ARGB) {
            int[] pixels = (int[]) image.getRaster().getDataElements(0, 0, width, height, null);
            if (type == BufferedImage.TYPE_INT_RGB) {
                for (int i = 0; i < pixels.length; i++) {
                    pixels[i] |= 0xff000000;  // no alpha: getRGB answers it opaque
                }
            }
            return pixels;
        }
        return image.getRGB(0, 0, width, height, null, 0, width);
    }

    /** The most frequent sub-colour of a cube; the first one on a tie (Cube555.best). */
    private static int best(int[] counts) {
        int max = 0;
        int best = 0;
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > max) {
                max = counts[i];
                best = i;
            }
        }
        return best;
    }

    public static boolean isTransparent(int argb) {
        return ((argb >>> 24) & 0xff) < 127;
    }

    public static IndexColorModel buildICM(int[] palette, int size) {
        byte[] red = new byte[size];
        byte[] green = new byte[size];
        byte[] blue = new byte[size];
        byte[] alpha = new byte[size];
        for (int i = 0; i < size; i++) {
            int argb = palette[i];
            alpha[i] = (byte) ((argb >>> 24) & 0xff);
            red[i] = (byte) ((argb >>> 16) & 0xff);
            green[i] = (byte) ((argb >>> 8) & 0xff);
            blue[i] = (byte) (argb & 0xff);
        }
        return new IndexColorModel(8, size, red, green, blue, alpha);
    }

    private static int representativeARGB(int cube, int sub) {
        if (cube == TRANSPARENT_CUBE) {
            return 0;
        }
        int red = ((cube >>> 10) & 31) << 3 | ((sub >>> 6) & 7);
        int green = ((cube >>> 5) & 31) << 3 | ((sub >>> 3) & 7);
        int blue = (cube & 31) << 3 | (sub & 7);
        return 0xff000000 | red << 16 | green << 8 | blue;
    }

    private static int getCubeIndex(int argb) {
        if (isTransparent(argb)) {
            return TRANSPARENT_CUBE;
        }
        return ((argb >>> 19) & 31) << 10 | ((argb >>> 11) & 31) << 5 | ((argb >>> 3) & 31);
    }

    private static int subColorIndex512(int argb) {
        return ((argb >>> 16) & 7) << 6 | ((argb >>> 8) & 7) << 3 | (argb & 7);
    }
}
