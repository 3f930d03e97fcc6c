/*
 * A faster, bit-identical QuantifyPacked28 for PlantUML 1.2026.2 (MIT build): PlantUML's
 * second PNG packer, used when the palette step gives up (over 256 or under 32 colour
 * cubes, or a transparent background). It copies each pixel with every channel's lowest bit
 * replaced by its highest (QuantUtils.compressPackedARGB), through getRGB and setRGB pixel by
 * pixel in PlantUML's own class ((C) Arnaud Roques, MIT licence); here on the raster's int
 * array. Same fall-back (null on any error). Shadows PlantUML's class under the same
 * conditions as Quantify555 (see there).
 */
package net.sourceforge.plantuml.png.quant;

import java.awt.image.BufferedImage;

public final class QuantifyPacked28 {
    public static BufferedImage packMeIfPossible(BufferedImage image) {
        try {
            return pack(image);
        } catch (Throwable error) {
            return null;  // as PlantUML's: any failure means the image is written unpacked
        }
    }

    private static BufferedImage pack(BufferedImage image) {
        int type = image.getType();
        int width = image.getWidth();
        int height = image.getHeight();
        BufferedImage packed = new BufferedImage(width, height, type);
        if (type == BufferedImage.TYPE_INT_RGB || type == BufferedImage.TYPE_INT_ARGB) {
            int[] pixels = (int[]) image.getRaster().getDataElements(0, 0, width, height, null);
            // TYPE_INT_RGB: getRGB answers the pixel opaque, setRGB keeps its 24 colour bits.
            int opaque = type == BufferedImage.TYPE_INT_RGB ? 0xff000000 : 0;
            int kept = type == BufferedImage.TYPE_INT_RGB ? 0x00ffffff : 0xffffffff;
            for (int i = 0; i < pixels.length; i++) {
                pixels[i] = compressPackedARGB(pixels[i] | opaque) & kept;
            }
            packed.getRaster().setDataElements(0, 0, width, height, pixels);
            return packed;
        }
        int[] pixels = image.getRGB(0, 0, width, height, null, 0, width);
        for (int i = 0; i < pixels.length; i++) {
            pixels[i] = compressPackedARGB(pixels[i]);
        }
        packed.setRGB(0, 0, width, height, pixels, 0, width);
        return packed;
    }

    /** QuantUtils.compressPackedARGB of PlantUML 1.2026.2. */
    private static int compressPackedARGB(int argb) {
        return (argb & 0xfefefefe) | ((argb >>> 7) & 0x01010101);
    }
}
