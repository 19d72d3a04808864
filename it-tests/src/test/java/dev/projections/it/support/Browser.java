package dev.projections.it.support;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium from Debian's packages. The driver path is pinned, so Selenium Manager never goes
 * online (docs/pitfalls.md #6).
 */
public final class Browser implements AutoCloseable {

    private static final File CHROMIUM = new File("/usr/bin/chromium");
    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");

    public static final String CONSOLE = "http://127.0.0.1:8080/projections/";

    private final WebDriver driver;

    /**
     * A wait that looks every 25 ms. WebDriverWait's default look every 500 ms made every wait for a page last half a
     * second or more, and the console tests wait a few hundred times (the paging test alone 205).
     */
    public static org.openqa.selenium.support.ui.WebDriverWait waitUpTo(WebDriver driver, Duration timeout) {
        return new org.openqa.selenium.support.ui.WebDriverWait(driver, timeout, Duration.ofMillis(25));
    }

    public Browser() throws IOException {
        this(false);
    }

    /** With {@code dark}, pages see {@code prefers-color-scheme: dark}, as in a browser set to a dark theme. */
    public Browser(boolean dark) throws IOException {
        if (!CHROMIUM.canExecute() || !CHROMEDRIVER.canExecute()) {
            throw new IllegalStateException("the console tests need Chromium and its driver: "
                    + "apt-get install -y chromium chromium-driver (.ci/run does this)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--no-first-run", "--window-size=1280,900",
                "--user-data-dir=" + Files.createTempDirectory("chromium-profile"));
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER).build();
        ChromeDriver chrome = new ChromeDriver(service, options);
        if (dark) {
            chrome.executeCdpCommand("Emulation.setEmulatedMedia", java.util.Map.of("features",
                    java.util.List.of(java.util.Map.of("name", "prefers-color-scheme", "value", "dark"))));
        }
        driver = chrome;
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    }

    public WebDriver driver() {
        return driver;
    }

    /** Opens {@code path} of the console and logs in through its form as {@code user}. */
    public void logIn(String path, String user, String password) {
        logInAt(CONSOLE + path, user, password);
    }

    /** Opens {@code url}, a page of a console served elsewhere, and logs in through its form as {@code user}. */
    public void logInAt(String url, String user, String password) {
        driver.get(url);
        driver.findElement(org.openqa.selenium.By.id("j_username")).sendKeys(user);
        driver.findElement(org.openqa.selenium.By.id("j_password")).sendKeys(password);
        driver.findElement(org.openqa.selenium.By.id("login")).click();
        waitUpTo(driver, Duration.ofSeconds(20))
                .ignoring(org.openqa.selenium.WebDriverException.class)
                .until(d -> !d.findElements(org.openqa.selenium.By.id("user")).isEmpty());
    }

    /** The labels of the buttons on the page. */
    public java.util.List<String> buttons() {
        return driver.findElements(org.openqa.selenium.By.cssSelector("input[type=submit], button")).stream()
                .map(button -> button.getTagName().equals("button") ? button.getText() : button.getAttribute("value"))
                .toList();
    }

    /** Saves a screenshot under target/screenshots/. */
    public void screenshot(String name) throws IOException {
        Path dir = Path.of("target", "screenshots");
        Files.createDirectories(dir);
        File shot = ((TakesScreenshot) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        driver.quit();
    }
}
