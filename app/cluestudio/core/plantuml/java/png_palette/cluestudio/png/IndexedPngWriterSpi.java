/*
 * Puts IndexedPngWriter first among ImageIO's PNG writers. ImageIO finds this class through
 * META-INF/services when the palette jar is on the class path (renderer.py puts it there
 * only for the PlantUML it was measured with); every other image goes to the JDK's writer.
 */
package cluestudio.png;

import java.util.Iterator;
import java.util.Locale;

import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriter;
import javax.imageio.spi.ImageWriterSpi;
import javax.imageio.spi.ServiceRegistry;
import javax.imageio.stream.ImageOutputStream;

public final class IndexedPngWriterSpi extends ImageWriterSpi {
    private volatile ImageWriterSpi jdk;

    public IndexedPngWriterSpi() {
        super("ClueStudio", "1.0", new String[] {"png", "PNG"}, new String[] {"png"},
                new String[] {"image/png", "image/x-png"}, IndexedPngWriter.class.getName(),
                new Class<?>[] {ImageOutputStream.class}, null, false, null, null, null, null,
                true, "javax_imageio_png_1.0", "com.sun.imageio.plugins.png.PNGMetadataFormat",
                null, null);
    }

    @Override
    public void onRegistration(ServiceRegistry registry, Class<?> category) {
        Iterator<ImageWriterSpi> writers = registry.getServiceProviders(ImageWriterSpi.class, false);
        while (writers.hasNext()) {
            ImageWriterSpi other = writers.next();
            if (other != this && other.getClass().getName().startsWith("com.sun.imageio.plugins.png.")) {
                jdk = other;
                registry.setOrdering(ImageWriterSpi.class, this, other);
            }
        }
        if (jdk == null) {
            registry.deregisterServiceProvider(this, ImageWriterSpi.class);  // nothing to stand in for
        }
    }

    @Override
    public boolean canEncodeImage(ImageTypeSpecifier type) {
        return jdk != null && jdk.canEncodeImage(type);
    }

    @Override
    public ImageWriter createWriterInstance(Object extension) throws java.io.IOException {
        return new IndexedPngWriter(this, jdk.createWriterInstance(extension));
    }

    @Override
    public String getDescription(Locale locale) {
        return "PNG writer for 8-bit palette images, no row filters (others: the JDK's)";
    }
}
