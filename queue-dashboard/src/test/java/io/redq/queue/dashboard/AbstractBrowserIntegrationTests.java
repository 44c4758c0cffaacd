package io.redq.queue.dashboard;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import io.redq.queue.test.RedisServerInitializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.util.FileSystemUtils;

import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * What the dashboard's browser tests share: Debian's headless Chromium driven by its own
 * chromedriver (never a downloaded one), a fresh profile, and screenshots under
 * {@code target/dashboard-screenshots}. The tests are skipped, saying why, when Chromium
 * or its driver is not installed.
 *
 * @author Redq team
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractBrowserIntegrationTests {

	static final Path CHROMIUM = Path.of(System.getProperty("redq.test.chromium", "/usr/bin/chromium"));

	static final Path CHROMEDRIVER = Path.of(System.getProperty("redq.test.chromedriver", "/usr/bin/chromedriver"));

	static final Path SCREENSHOTS = Path.of("target", "dashboard-screenshots");

	static final Duration DEADLINE = Duration.ofSeconds(30);

	@LocalServerPort
	int port;

	WebDriver browser;

	private Path profile;

	@BeforeAll
	void startBrowser() throws IOException {
		assumeThat(Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER))
			.as("Chromium (" + CHROMIUM + ") and its driver (" + CHROMEDRIVER + ") are not installed: "
					+ "apt-get install chromium chromium-driver")
			.isTrue();
		this.profile = Files.createTempDirectory("redq-chromium-");
		ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
			.usingAnyFreePort()
			.build();
		ChromeOptions options = new ChromeOptions();
		options.setBinary(CHROMIUM.toFile());
		options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
				"--disable-background-networking", "--disable-component-update", "--disable-sync",
				"--disable-dev-shm-usage", "--user-data-dir=" + this.profile, "--window-size=1280,900");
		this.browser = new ChromeDriver(service, options);
		Files.createDirectories(SCREENSHOTS);
	}

	@AfterAll
	void stopBrowser() throws IOException {
		if (this.browser != null) {
			this.browser.quit();
		}
		if (this.profile != null) {
			FileSystemUtils.deleteRecursively(this.profile);
		}
	}

	@BeforeEach
	void emptyRedis() {
		RedisServerInitializer.sharedServer().flushAll();
	}

	/**
	 * Open a view of the dashboard, without a filter a test set before on it, and wait
	 * until the page has drawn it.
	 * @param view the part after {@code #/}, e.g. {@code queue/ops/dead}
	 */
	void open(String view) {
		String url = "http://localhost:" + this.port + "/redq/#/" + view;
		if (url.equals(this.browser.getCurrentUrl())) {
			// the same address again would keep the page, and what it holds (a filter)
			this.browser.navigate().refresh();
		}
		else {
			this.browser.get(url);
		}
		// another view of the same page only changes the address's fragment: the view
		// drawn before stays until the page has drawn the new one, which it marks
		String hash = (String) script("return location.hash;");
		await().atMost(DEADLINE).until(() -> hash.equals(attribute("#view", "data-hash")));
	}

	/**
	 * Return the text of the first element a selector finds, read in one step in the
	 * page, so that a redraw by the page's polling cannot leave a stale element.
	 * @param css the selector
	 * @return its text, or an empty string when there is none
	 */
	String text(String css) {
		return (String) script("const e = document.querySelector(arguments[0]); return e ? e.innerText.trim() : '';",
				css);
	}

	/**
	 * Click the first element a selector finds, in one step in the page like
	 * {@link #text(String)}.
	 * @param css the selector
	 */
	void click(String css) {
		script("document.querySelector(arguments[0]).click();", css);
	}

	/**
	 * Return an attribute of the first element a selector finds, read like
	 * {@link #text(String)}.
	 * @param css the selector
	 * @param name the attribute
	 * @return its value, or an empty string when there is none
	 */
	String attribute(String css, String name) {
		return (String) script(
				"const e = document.querySelector(arguments[0]); return e ? (e.getAttribute(arguments[1]) || '') : '';",
				css, name);
	}

	java.util.List<WebElement> find(String css) {
		return this.browser.findElements(By.cssSelector(css));
	}

	Object script(String script, Object... arguments) {
		return ((JavascriptExecutor) this.browser).executeScript(script, arguments);
	}

	void screenshot(String name) throws IOException {
		File shot = ((TakesScreenshot) this.browser).getScreenshotAs(OutputType.FILE);
		Files.copy(shot.toPath(), SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
	}

}
