/*
 * A PNG writer for what PlantUML's PNG export hands ImageIO most of the time: an 8-bit
 * palette image (after its Quantify555 packing) with a few text chunks. The JDK's writer
 * tries all five row filters on every row and keeps the best guess, which for palette images
 * makes encoding cost about three times as much as unfiltered rows do, and the file bigger
 * (the PNG specification recommends no filter for palette images). This one writes the same chunks (IHDR, PLTE,
 * tEXt, IDAT, IEND) with filter "none" at the deflate level the caller's write
 * parameter asks: the same image, pixel for pixel, in fewer bytes and about a third of the
 * encoding CPU (docs/adr/0002; tests/test_render_png.py decodes both and compares). Anything
 * else (other image types, translucent palettes, regions, subsampling, interlacing, other
 * chunks such as the iTXt PlantUML embeds the source in when asked) goes to the JDK's writer
 * unchanged.
 */
package cluestudio.png;

import java.awt.Transparency;
import java.awt.image.BufferedImage;
import java.awt.image.IndexColorModel;
import java.awt.image.RenderedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.DeflaterOutputStream;

import javax.imageio.IIOImage;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.stream.ImageOutputStream;

import org.w3c.dom.Element;
import org.w3c.dom.Node;

final class IndexedPngWriter extends ImageWriter {
    private static final String FORMAT = "javax_imageio_png_1.0";
    private static final byte[] SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final int JDK_DEFAULT_LEVEL = 4;  // PNGImageWriter's DEFAULT_COMPRESSION_LEVEL

    private final ImageWriter jdk;

    IndexedPngWriter(IndexedPngWriterSpi provider, ImageWriter jdk) {
        super(provider);
        this.jdk = jdk;
    }

    @Override
    public void setOutput(Object output) {
        super.setOutput(output);
        jdk.setOutput(output);
    }

    @Override
    public ImageWriteParam getDefaultWriteParam() {
        return jdk.getDefaultWriteParam();
    }

    @Override
    public IIOMetadata getDefaultStreamMetadata(ImageWriteParam param) {
        return jdk.getDefaultStreamMetadata(param);
    }

    @Override
    public IIOMetadata getDefaultImageMetadata(ImageTypeSpecifier type, ImageWriteParam param) {
        return jdk.getDefaultImageMetadata(type, param);
    }

    @Override
    public IIOMetadata convertStreamMetadata(IIOMetadata data, ImageWriteParam param) {
        return jdk.convertStreamMetadata(data, param);
    }

    @Override
    public IIOMetadata convertImageMetadata(IIOMetadata data, ImageTypeSpecifier type,
            ImageWriteParam param) {
        return jdk.convertImageMetadata(data, type, param);
    }

    @Override
    public void dispose() {
        jdk.dispose();
        super.dispose();
    }

    @Override
    public void write(IIOMetadata stream, IIOImage image, ImageWriteParam param) throws IOException {
        List<byte[]> chunks = image.hasRaster() ? null : fastChunks(image, param);
        if (chunks == null) {
            jdk.write(stream, image, param);
            return;
        }
        ImageOutputStream out = (ImageOutputStream) getOutput();
        out.write(SIGNATURE);
        for (byte[] chunk : chunks) {
            out.write(chunk);
        }
        out.flush();
    }

    /** The whole file's chunks, or null when the JDK's writer should write this image. */
    private static List<byte[]> fastChunks(IIOImage image, ImageWriteParam param) throws IOException {
        RenderedImage rendered = image.getRenderedImage();
        if (!(rendered instanceof BufferedImage) || !plainParam(param)) {
            return null;
        }
        BufferedImage indexed = (BufferedImage) rendered;
        if (indexed.getType() != BufferedImage.TYPE_BYTE_INDEXED
                || !(indexed.getColorModel() instanceof IndexColorModel)) {
            return null;
        }
        IndexColorModel palette = (IndexColorModel) indexed.getColorModel();
        if (palette.getPixelSize() != 8 || palette.getTransparency() != Transparency.OPAQUE
                || grayRamp(palette)) {
            return null;  // translucent: tRNS; a grey ramp: the JDK writes it as greyscale
        }
        List<byte[]> chunks = new ArrayList<>();
        chunks.add(header(indexed.getWidth(), indexed.getHeight()));
        chunks.add(paletteChunk(palette));
        IIOMetadata metadata = image.getMetadata();
        if (metadata != null && !metadataChunks(metadata, chunks)) {
            return null;
        }
        chunks.add(chunk("IDAT", pixels(indexed, level(param))));
        chunks.add(chunk("IEND", new byte[0]));
        return chunks;
    }

    private static boolean plainParam(ImageWriteParam param) {
        if (param == null) {
            return true;
        }
        return param.getSourceRegion() == null
                && param.getSourceXSubsampling() == 1 && param.getSourceYSubsampling() == 1
                && param.getSubsamplingXOffset() == 0 && param.getSubsamplingYOffset() == 0
                && param.getDestinationOffset().x == 0 && param.getDestinationOffset().y == 0
                && param.getSourceBands() == null
                && (!param.canWriteProgressive()
                    || param.getProgressiveMode() != ImageWriteParam.MODE_DEFAULT);
    }

    /** The deflate level the JDK's writer uses for this parameter (PlantUML asks for 7). */
    private static int level(ImageWriteParam param) {
        if (param == null || !param.canWriteCompressed()) {
            return JDK_DEFAULT_LEVEL;
        }
        if (param.getCompressionMode() == ImageWriteParam.MODE_DISABLED) {
            return Deflater.NO_COMPRESSION;
        }
        if (param.getCompressionMode() == ImageWriteParam.MODE_EXPLICIT) {
            float quality = param.getCompressionQuality();
            if (quality >= 0f && quality <= 1f) {
                return 9 - Math.round(9f * quality);
            }
        }
        return JDK_DEFAULT_LEVEL;
    }

    private static boolean grayRamp(IndexColorModel palette) {
        for (int i = 0; i < palette.getMapSize(); i++) {
            int rgb = palette.getRGB(i);
            if (((rgb >> 16) & 0xff) != i || ((rgb >> 8) & 0xff) != i || (rgb & 0xff) != i) {
                return false;
            }
        }
        return true;
    }

    private static byte[] header(int width, int height) throws IOException {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        writeInt(data, width);
        writeInt(data, height);
        data.write(8);  // bit depth
        data.write(3);  // colour type: palette
        data.write(0);  // deflate
        data.write(0);  // adaptive filtering (the method; each row says which filter)
        data.write(0);  // not interlaced
        return chunk("IHDR", data.toByteArray());
    }

    private static byte[] paletteChunk(IndexColorModel palette) throws IOException {
        int size = palette.getMapSize();
        byte[] rgb = new byte[3 * size];
        for (int i = 0; i < size; i++) {
            int argb = palette.getRGB(i);
            rgb[3 * i] = (byte) (argb >> 16);
            rgb[3 * i + 1] = (byte) (argb >> 8);
            rgb[3 * i + 2] = (byte) argb;
        }
        return chunk("PLTE", rgb);
    }

    /** Adds the tEXt chunks the metadata holds; false if it holds other chunks (or an IHDR
     *  that asks for interlacing), which the JDK's writer then handles. */
    private static boolean metadataChunks(IIOMetadata metadata, List<byte[]> chunks) throws IOException {
        Node root;
        try {
            root = metadata.getAsTree(FORMAT);
        } catch (IllegalArgumentException notPng) {
            return false;
        }
        List<byte[]> texts = new ArrayList<>();
        for (Node node = root.getFirstChild(); node != null; node = node.getNextSibling()) {
            String name = node.getNodeName();
            if ("IHDR".equals(name)) {
                if (!"none".equals(((Element) node).getAttribute("interlaceMethod"))) {
                    return false;
                }
            } else if ("tEXt".equals(name)) {
                for (Node entry = node.getFirstChild(); entry != null; entry = entry.getNextSibling()) {
                    texts.add(textChunk((Element) entry));
                }
            } else {
                return false;
            }
        }
        chunks.addAll(texts);
        return true;
    }

    private static byte[] textChunk(Element entry) throws IOException {
        ByteArrayOutputStream data = new ByteArrayOutputStream();
        data.write(entry.getAttribute("keyword").getBytes(StandardCharsets.ISO_8859_1));
        data.write(0);
        data.write(entry.getAttribute("value").getBytes(StandardCharsets.ISO_8859_1));
        return chunk("tEXt", data.toByteArray());
    }

    /** Every row with filter byte 0 (none), deflated. */
    private static byte[] pixels(BufferedImage indexed, int level) throws IOException {
        int width = indexed.getWidth();
        int height = indexed.getHeight();
        byte[] row = new byte[width];
        Deflater deflater = new Deflater(level);
        ByteArrayOutputStream compressed = new ByteArrayOutputStream();
        try (DeflaterOutputStream out = new DeflaterOutputStream(compressed, deflater, 1 << 16)) {
            for (int y = 0; y < height; y++) {
                indexed.getRaster().getDataElements(0, y, width, 1, row);
                out.write(0);
                out.write(row);
            }
        } finally {
            deflater.end();
        }
        return compressed.toByteArray();
    }

    private static byte[] chunk(String type, byte[] data) throws IOException {
        ByteArrayOutputStream chunk = new ByteArrayOutputStream(data.length + 12);
        writeInt(chunk, data.length);
        byte[] name = type.getBytes(StandardCharsets.US_ASCII);
        chunk.write(name);
        chunk.write(data);
        CRC32 crc = new CRC32();
        crc.update(name);
        crc.update(data);
        writeInt(chunk, (int) crc.getValue());
        return chunk.toByteArray();
    }

    private static void writeInt(ByteArrayOutputStream out, int value) {
        out.write(value >>> 24);
        out.write(value >>> 16);
        out.write(value >>> 8);
        out.write(value);
    }
}
