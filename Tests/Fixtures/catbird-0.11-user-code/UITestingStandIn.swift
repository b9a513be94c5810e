// Linux only: XCTest there has no UI testing. The members the 0.11-style files use, nothing else.
#if os(Linux)
import Foundation

open class XCUIElement {
    public init() {}
    open var exists: Bool { true }
    open func tap() {}
    open func typeText(_ text: String) {}
    open func waitForExistence(timeout: TimeInterval) -> Bool { true }
}

open class XCUIElementQuery {
    public init() {}
    open subscript(_ identifier: String) -> XCUIElement { XCUIElement() }
}

open class XCUIApplication {
    public var launchArguments: [String] = []
    public var launchEnvironment: [String: String] = [:]
    public init() {}
    open func launch() {}
    open var textFields: XCUIElementQuery { XCUIElementQuery() }
    open var secureTextFields: XCUIElementQuery { XCUIElementQuery() }
    open var buttons: XCUIElementQuery { XCUIElementQuery() }
    open var staticTexts: XCUIElementQuery { XCUIElementQuery() }
    open var alerts: XCUIElementQuery { XCUIElementQuery() }
}
#endif
